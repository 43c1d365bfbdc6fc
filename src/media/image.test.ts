import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { readImage } from "./image.ts";

describe("readImage", () => {
  it("reports the displayed size and an upright poster of a JPEG with an EXIF orientation", async () => {
    // Stored 96x54 with a white band on the left; orientation 6 = turn 90° clockwise to display,
    // so it shows 54x96 with the band on top (as ffmpeg decodes it for renders).
    const band = await sharp({ create: { width: 24, height: 54, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();
    const jpeg = await sharp({ create: { width: 96, height: 54, channels: 3, background: "#c03060" } })
      .composite([{ input: band, left: 0, top: 0 }])
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const facts = await readImage(jpeg);
    expect({ width: facts.width, height: facts.height }).toEqual({ width: 54, height: 96 });
    const poster = sharp(facts.poster);
    const meta = await poster.metadata();
    expect({ width: meta.width, height: meta.height }).toEqual({ width: 54, height: 96 });
    const { data } = await poster.raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => data[(y * 54 + x) * 3] as number;
    expect(at(27, 5)).toBeGreaterThan(200); // the band, now on top
    expect(at(27, 90)).toBeLessThan(230);
    expect(data[(90 * 54 + 27) * 3 + 1] as number).toBeLessThan(120); // magenta below, not white
  });

  it("keeps the stored size of an image without orientation", async () => {
    const png = await sharp({ create: { width: 40, height: 20, channels: 4, background: "#00000000" } })
      .png()
      .toBuffer();
    const facts = await readImage(png);
    expect({ width: facts.width, height: facts.height }).toEqual({ width: 40, height: 20 });
  });
});
