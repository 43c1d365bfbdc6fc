import { describe, expect, it } from "vitest";
import { AppError } from "../../errors.ts";
import { parseEdl } from "./edl.ts";

/** The message of the 400 a parse throws. */
function refusal(text: string, fps = 24): string {
  try {
    parseEdl(text, fps);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).message;
  }
  throw new Error("expected a 400");
}

const HEAD = "TITLE: t\nFCM: NON-DROP FRAME\n\n";
const CUT = "001  AX       V     C        00:00:00:00 00:00:01:00 01:00:00:00 01:00:01:00\n";

describe("EDL parsing", () => {
  it("reads locators with and without a colour word, and audio channels", () => {
    const edl = parseEdl(
      `${HEAD}${CUT}* LOC: 01:00:00:12 RED     Logo reveal\n* LOC: 01:00:00:18 no colour here\n` +
        "002  AX       A2    C        00:00:00:00 00:00:01:00 01:00:00:00 01:00:01:00\n",
      24,
    );
    expect(edl.locators).toEqual([
      { frame: 86_412, color: "RED", label: "Logo reveal", line: "line 5" },
      { frame: 86_418, color: "", label: "no colour here", line: "line 6" },
    ]);
    expect(edl.events.map((e) => e.channels)).toEqual(["V", "A2"]);
  });

  it("names the event or line of what it cannot read", () => {
    expect(refusal(`${HEAD}${CUT}002  AX  V  C  01:00:00:00\n`)).toMatch(/^event 002: cannot read/);
    expect(refusal(`${HEAD}${CUT.replace("00:00:01:00 01", "00:00:01:30 01")}`)).toMatch(/^event 001: /);
    expect(refusal(`${HEAD}${CUT}* LOC: 01:00:00:31 RED late\n`)).toMatch(/^line 5: /);
    expect(refusal(`${HEAD}M2   AX       048.0                00:00:00:00\n`)).toMatch(/^line 4: an M2 line/);
    expect(refusal(HEAD)).toMatch(/has no events/);
  });
});
