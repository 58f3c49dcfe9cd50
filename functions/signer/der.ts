/**
 * KMS returns ECDSA signatures DER-encoded (SEQUENCE { INTEGER r, INTEGER s }); JWS wants the raw
 * 64-byte r‖s (RFC 7518 §3.4). Integers are big-endian, minimal, with a leading zero when the high bit
 * is set; each is left-padded to 32 bytes here.
 */
export function derToJose(der: Uint8Array, size = 32): Uint8Array {
  let offset = 0;
  const expect = (tag: number) => {
    if (der[offset] !== tag) throw new Error(`malformed DER signature: expected tag ${tag} at ${offset}`);
    offset += 1;
  };
  const length = (): number => {
    let len = der[offset++] as number;
    if (len & 0x80) {
      const bytes = len & 0x7f;
      len = 0;
      for (let i = 0; i < bytes; i++) len = (len << 8) | (der[offset++] as number);
    }
    return len;
  };
  expect(0x30);
  const total = length();
  if (offset + total !== der.length) throw new Error("malformed DER signature: bad sequence length");
  const out = new Uint8Array(size * 2);
  for (const part of [0, 1]) {
    expect(0x02);
    const len = length();
    let bytes = der.subarray(offset, offset + len);
    offset += len;
    while (bytes.length > size && bytes[0] === 0) bytes = bytes.subarray(1);
    if (bytes.length > size) throw new Error("malformed DER signature: integer too long");
    out.set(bytes, part * size + (size - bytes.length));
  }
  return out;
}
