/** What console.log and console.error printed while captured, one string a call. */
export interface CapturedConsole {
  stdout: string[];
  stderr: string[];
  /** Puts the original console.log and console.error back. */
  restore(): void;
}

/**
 * Keeps what console.log and console.error print (the provider's progress lines and its
 * warnings) instead of printing it, until `restore()`: for tests that assert on those lines.
 */
export function captureConsole(): CapturedConsole {
  const original = { log: console.log, error: console.error };
  const stdout: string[] = [];
  const stderr: string[] = [];
  console.log = (...args: unknown[]) => stdout.push(args.map(String).join(" "));
  console.error = (...args: unknown[]) => stderr.push(args.map(String).join(" "));
  return {
    stdout,
    stderr,
    restore() {
      console.log = original.log;
      console.error = original.error;
    },
  };
}
