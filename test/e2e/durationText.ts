/** A duration as the timings table prints it ("1.23 s" or "45 ms"), in milliseconds. */
export const msOf = (text: string): number =>
  text.endsWith(" s") ? Number.parseFloat(text) * 1000 : Number.parseFloat(text)
