import { SaxesParser } from "saxes";

/**
 * Parses `xml` with a conforming XML 1.0 parser (saxes), which refuses what a lenient one lets
 * through: characters XML does not allow, unescaped markup, mismatched tags.
 * @throws Error naming the first well-formedness error.
 */
export function assertWellFormedXml(xml: string): void {
  const parser = new SaxesParser();
  let failure: Error | undefined;
  parser.on("error", (err) => {
    failure ??= err;
  });
  parser.write(xml).close();
  if (failure) throw new Error(`not well-formed XML: ${failure.message}`);
}
