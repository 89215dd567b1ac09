// The log of API requests, in arrival order. Entries are added when a request is finished (its
// status is known then), so a slow request is slotted back in by its arrival number.
import type { RequestLogEntry } from "../types";

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private lastSeq = 0;

  /** Numbers a request as it arrives. */
  nextSeq(): number {
    this.lastSeq += 1;
    return this.lastSeq;
  }

  record(entry: RequestLogEntry): void {
    let index = this.entries.length;
    while (index > 0 && this.entries[index - 1].seq > entry.seq) index -= 1;
    this.entries.splice(index, 0, entry);
  }

  snapshot(): RequestLogEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  /** Forgets the entries; numbering goes on, so seq stays unique for the emulator's life. */
  clear(): void {
    this.entries = [];
  }
}
