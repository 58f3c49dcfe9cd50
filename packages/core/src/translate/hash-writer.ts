import { createHash, type Hash } from "node:crypto";

const CHUNK = 1 << 20;

/**
 * Streams bytes into SHA-256 through a 1 MiB buffer. Feeding a cluster's canonical JSON as
 * pre-encoded shared pieces (a spec serialised once, written for every cluster that has it) avoids
 * building and re-encoding one string per object, which dominated large translations.
 */
export class HashWriter {
  private readonly hash: Hash = createHash("sha256");
  private readonly buffer = Buffer.allocUnsafe(CHUNK);
  private offset = 0;

  bytes(piece: Buffer): void {
    if (piece.length > CHUNK) {
      this.flush();
      this.hash.update(piece);
      return;
    }
    if (this.offset + piece.length > CHUNK) this.flush();
    this.buffer.set(piece, this.offset);
    this.offset += piece.length;
  }

  text(piece: string): void {
    this.bytes(Buffer.from(piece, "utf8"));
  }

  /** `sha256:<hex>` of everything written. The writer cannot be used afterwards. */
  digest(): string {
    this.flush();
    return `sha256:${this.hash.digest("hex")}`;
  }

  private flush(): void {
    if (this.offset > 0) this.hash.update(this.buffer.subarray(0, this.offset));
    this.offset = 0;
  }
}
