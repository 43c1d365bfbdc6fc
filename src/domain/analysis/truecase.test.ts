import { describe, expect, it } from "vitest";
import { isCapitalisedCommonWord, truecaseSentenceStarts } from "./truecase.ts";
import { modelKnows, withWink } from "./wink-instance.ts";

describe("isCapitalisedCommonWord (wink's lexicon decides)", () => {
  const common = (word: string) => withWink(["pos"], (nlp) => isCapitalisedCommonWord(word, modelKnows(nlp)));

  it("is true for common words written with a capital", () => {
    expect(common("Engineers")).toBe(true);
    expect(common("Rest")).toBe(true);
  });

  it("is false for names, other casings and words the lexicon lacks in lower case", () => {
    expect(common("China")).toBe(false); // listed capitalised
    expect(common("Berlin")).toBe(false); // not listed in lower case
    expect(common("engineers")).toBe(false); // no capital
    expect(common("USB")).toBe(false); // not one capital + lower case
    expect(common("Zzyzxq")).toBe(false); // unknown
  });
});

describe("truecaseSentenceStarts (wink's lexicon decides)", () => {
  const truecase = (line: string, before: string) =>
    withWink(["pos"], (nlp) => truecaseSentenceStarts(line, before, modelKnows(nlp)));

  it("lower-cases sentence-initial words the lexicon knows only in lower case", () => {
    expect(truecase("Rest them in a glass jar. Open the lid!", "")).toBe(
      "rest them in a glass jar. open the lid!",
    );
    expect(truecase("Welcome back to the channel.", "That was the intro.")).toBe(
      "welcome back to the channel.",
    );
  });

  it("keeps names, words inside a sentence, and periods of abbreviations and initials", () => {
    // Listed capitalised (China), unknown (Berlin), followed by a capital (Admiral Nelson).
    expect(truecase("China and Berlin. Admiral Nelson sailed.", "")).toBe(
      "China and Berlin. Admiral Nelson sailed.",
    );
    expect(truecase("Berlin is cold.", "")).toBe("Berlin is cold.");
    // The line starts mid-sentence.
    expect(truecase("Rest of the day", "and we spent the")).toBe("Rest of the day");
    // "Mr." and "J." do not end sentences.
    expect(truecase("Clay spoke first.", "Then Mr.")).toBe("Clay spoke first.");
    expect(truecase("he met Mr. Clay and J. Smith.", "")).toBe("he met Mr. Clay and J. Smith.");
  });
});
