import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";

/** What the metrics code does with its bucket: whole objects, byte ranges, listings. */
export interface ObjectBucket {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** The object, or undefined when there is none. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Bytes [start, end] (inclusive) of the object, fewer at its end; undefined when there is none. */
  range(key: string, start: number, end: number): Promise<Uint8Array | undefined>;
  /** Every key under `prefix`, in key order. */
  list(prefix: string): Promise<string[]>;
  /** The next level of prefixes under `prefix` (`h/` → `h/<tenant>/`…). */
  prefixes(prefix: string): Promise<string[]>;
}

const missing = (error: unknown) => error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey";

/** The bucket in S3 (or the S3 the local control plane emulates: same client, path-style). */
export class S3ObjectBucket implements ObjectBucket {
  constructor(private readonly deps: { s3: S3Client; bucket: string }) {}

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.deps.s3.send(new PutObjectCommand({ Bucket: this.deps.bucket, Key: key, Body: body, ContentType: contentType }));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.read(key);
  }

  async range(key: string, start: number, end: number): Promise<Uint8Array | undefined> {
    return this.read(key, `bytes=${start}-${end}`);
  }

  private async read(key: string, range?: string): Promise<Uint8Array | undefined> {
    try {
      const out = await this.deps.s3.send(new GetObjectCommand({ Bucket: this.deps.bucket, Key: key, ...(range ? { Range: range } : {}) }));
      return await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray();
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.listing(prefix)).keys;
  }

  async prefixes(prefix: string): Promise<string[]> {
    return (await this.listing(prefix, "/")).prefixes;
  }

  private async listing(prefix: string, delimiter?: string): Promise<{ keys: string[]; prefixes: string[] }> {
    const keys: string[] = [];
    const prefixes: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.deps.s3.send(
        new ListObjectsV2Command({
          Bucket: this.deps.bucket,
          Prefix: prefix,
          ...(delimiter ? { Delimiter: delimiter } : {}),
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) prefixes.push(p.Prefix);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return { keys: keys.sort(), prefixes: prefixes.sort() };
  }
}

/** Where the bucket is: its name, the region, and an endpoint for the local emulator (path-style, dummy credentials). */
export interface BucketLocation {
  region: string;
  bucket: string;
  endpoint?: string;
}

/** The bucket with its own S3 client. */
export async function s3Bucket(location: BucketLocation): Promise<S3ObjectBucket> {
  const { S3Client } = await import("@aws-sdk/client-s3");
  const s3 = new S3Client({
    region: location.region,
    ...(location.endpoint ? { endpoint: location.endpoint, forcePathStyle: true, credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
  });
  return new S3ObjectBucket({ s3, bucket: location.bucket });
}
