/** AWS list prices, us-east-1, per unit: the poll bench's and, beside them, what metrics use (docs/aws.md#metrics). */
export const PRICE = {
  httpApiRequest: 1.0 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  /** arm64, 512 MB: $0.0000133334 per GB-second. */
  lambdaMs: (0.0000133334 * 0.5) / 1000,
  readUnit: 0.125 / 1e6,
  writeUnit: 0.625 / 1e6,
  logGb: 0.5,
  webSocketMessage: 1.0 / 1e6,
  webSocketMinute: 0.25 / 1e6,
  /** SQS standard: per request, each 64 KiB of a payload a request. */
  sqsRequest: 0.4 / 1e6,
  /** S3 Standard: PUT, COPY, POST, LIST per request; GET per request; storage per GB-month. */
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  s3GbMonth: 0.023,
};
