/**
 * Prometheus remote write 1.0 without a dependency: a `prometheus.WriteRequest` protobuf (prompb's
 * remote.proto and types.proto) in a snappy block, POSTed to a server's `/api/v1/write`.
 *
 * Protobuf: `WriteRequest { repeated TimeSeries timeseries = 1; }`, `TimeSeries { repeated Label labels = 1;
 * repeated Sample samples = 2; }`, `Label { string name = 1; string value = 2; }`, `Sample { double value = 1;
 * int64 timestamp = 2; }` (milliseconds). Snappy: the block format (not the framed one) with literal elements
 * only, which is valid snappy that any decoder reads; the body is then about the protobuf's size, far below
 * the server's 32 MiB limit for the chunks `remoteWrite` sends.
 *
 * Prometheus answers 204 when every sample of a request is stored and rolls the whole request back on
 * one bad sample (400). It silently drops a series with an invalid label name, so names are checked here.
 */

/** One sample: timestamp in milliseconds since the epoch, value. */
export type Sample = readonly [timestampMs: number, value: number];

/** One series: its labels (`__name__` included) and its samples, oldest first. */
export interface Series {
  labels: Readonly<Record<string, string>>;
  samples: readonly Sample[];
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const utf8 = new TextEncoder();

/** A growable byte buffer with the few protobuf writes a WriteRequest needs. */
class Writer {
  private buf = new Uint8Array(1024);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  /** An unsigned varint; exact for every integer below 2^53 (millisecond timestamps, lengths). */
  varint(n: number): void {
    this.room(10);
    let v = n;
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /** A length-delimited field (wire type 2). */
  field(number: number, payload: Uint8Array): void {
    this.byte((number << 3) | 2);
    this.varint(payload.length);
    this.bytes(payload);
  }

  /** A double field (wire type 1, little-endian). */
  double(number: number, value: number): void {
    this.byte((number << 3) | 1);
    this.room(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.length, 8).setFloat64(0, value, true);
    this.length += 8;
  }

  /** A varint field (wire type 0). */
  uint(number: number, value: number): void {
    this.byte(number << 3);
    this.varint(value);
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function encodeSeries(series: Series): Uint8Array {
  if (!series.labels["__name__"]) throw new Error(`series without __name__: ${JSON.stringify(series.labels)}`);
  const w = new Writer();
  // Sorted as Prometheus keeps them (it sorts on receipt too).
  for (const name of Object.keys(series.labels).sort()) {
    if (!LABEL_NAME.test(name)) throw new Error(`invalid label name ${JSON.stringify(name)} (Prometheus would drop the series)`);
    const label = new Writer();
    label.field(1, utf8.encode(name));
    label.field(2, utf8.encode(series.labels[name] ?? ""));
    w.field(1, label.done());
  }
  for (const [timestampMs, value] of series.samples) {
    if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) throw new Error(`invalid timestamp ${timestampMs}`);
    const sample = new Writer();
    sample.double(1, value);
    sample.uint(2, timestampMs);
    w.field(2, sample.done());
  }
  return w.done();
}

/** The protobuf `prometheus.WriteRequest` of these series. Throws on a series Prometheus would refuse or drop. */
export function encodeWriteRequest(series: readonly Series[]): Uint8Array {
  const w = new Writer();
  for (const s of series) w.field(1, encodeSeries(s));
  return w.done();
}

/** `data` as a snappy block (format: varint length, then literal elements of at most 64 KiB each). */
export function snappyBlock(data: Uint8Array): Uint8Array {
  const w = new Writer();
  w.varint(data.length);
  for (let i = 0; i < data.length; i += 65536) {
    const chunk = data.subarray(i, Math.min(i + 65536, data.length));
    const n = chunk.length - 1;
    if (n < 60) w.byte(n << 2);
    else if (n < 256) {
      w.byte(60 << 2);
      w.byte(n);
    } else {
      w.byte(61 << 2);
      w.byte(n & 0xff);
      w.byte(n >> 8);
    }
    w.bytes(chunk);
  }
  return w.done();
}

/** Splits series into requests of at most `maxSamples` samples each (a long series is split across requests; a series without samples is left out). */
export function chunkSeries(series: readonly Series[], maxSamples: number): Series[][] {
  const chunks: Series[][] = [];
  let current: Series[] = [];
  let count = 0;
  for (const s of series) {
    for (let i = 0; i < s.samples.length; ) {
      const take = Math.min(s.samples.length - i, maxSamples - count);
      current.push({ labels: s.labels, samples: s.samples.slice(i, i + take) });
      count += take;
      i += take;
      if (count >= maxSamples) {
        chunks.push(current);
        current = [];
        count = 0;
      }
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export interface RemoteWriteResult {
  requests: number;
  series: number;
  samples: number;
  /** Bytes sent (snappy bodies). */
  bytes: number;
}

/**
 * Sends the series to `writeUrl` (a server's `/api/v1/write`) in requests of at most `maxSamples`
 * samples (default 50,000), one after the other; throws with Prometheus' message on any answer but 204.
 * Sending the same samples again is harmless (Prometheus accepts an identical sample twice).
 */
export async function remoteWrite(writeUrl: string, series: readonly Series[], maxSamples = 50_000): Promise<RemoteWriteResult> {
  const result: RemoteWriteResult = { requests: 0, series: series.length, samples: 0, bytes: 0 };
  for (const chunk of chunkSeries(series, maxSamples)) {
    const body = snappyBlock(encodeWriteRequest(chunk));
    const res = await fetch(writeUrl, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" },
    });
    const text = await res.text();
    if (res.status !== 204) throw new Error(`remote write to ${writeUrl}: HTTP ${res.status}: ${text.trim()}`);
    result.requests++;
    result.bytes += body.length;
    for (const s of chunk) result.samples += s.samples.length;
  }
  return result;
}
