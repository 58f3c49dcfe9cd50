/**
 * The web console on AWS: its static files in a private S3 bucket, served by CloudFront (origin access
 * control; the bucket is never public), with the HTTP API behind the same distribution under `/v1/*`,
 * `/openapi.json`, `/.well-known/*` and `/healthz`. One origin for both means the console's CSP can say
 * `connect-src 'self'`, no CORS is needed, and the tenant token only ever goes to that origin. Agents
 * keep calling the API's own URL; the console's calls reach the same Lambda through CloudFront, never
 * cached, with every viewer header (Authorization among them) forwarded.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { CfnOutput, Duration, Fn, RemovalPolicy, Stack } from "aws-cdk-lib";
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { HttpOrigin, S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { BucketDeployment, CacheControl, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import { CONSOLE_SECURITY_HEADERS } from "../../packages/console/headers";
import { ROOT } from "./bundle";

/** The API paths the distribution sends to the HTTP API (everything the console calls). */
export const API_PATHS = ["/v1/*", "/openapi.json", "/.well-known/*", "/healthz"];

export interface MeshplaneConsoleProps {
  /** The HTTP API stage's URL, `https://<id>.execute-api.<region>.amazonaws.com/`. */
  apiUrl: string;
  removalPolicy: RemovalPolicy;
}

/** Builds the console as `npm start` does (scripts/build-console.ts), on the machine that synthesises. */
function builtConsole(): string {
  const run = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/build-console.ts"), "--if-stale"], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (run.status !== 0) throw new Error("building the console failed (scripts/build-console.ts)");
  return join(ROOT, "packages/console/dist");
}

export class MeshplaneConsole extends Construct {
  readonly distribution: Distribution;
  readonly url: string;

  constructor(scope: Construct, id: string, props: MeshplaneConsoleProps) {
    super(scope, id);
    const autoDelete = props.removalPolicy === RemovalPolicy.DESTROY;
    // Access logs of the site bucket and of the distribution. CloudFront's standard logs are written
    // with an ACL, so this one bucket keeps ACLs (owner-preferred); nothing in it is public.
    const logs = new Bucket(this, "AccessLogs", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: autoDelete,
    });
    const site = new Bucket(this, "Site", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: "s3/",
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: autoDelete,
    });

    const headers = new ResponseHeadersPolicy(this, "SecurityHeaders", {
      comment: "meshplane console: strict CSP and the same headers the local control plane sends",
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONSOLE_SECURITY_HEADERS["content-security-policy"] as string, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: {
        customHeaders: ["cross-origin-opener-policy", "cross-origin-resource-policy", "permissions-policy"].map((header) => ({
          header,
          value: CONSOLE_SECURITY_HEADERS[header] as string,
          override: true,
        })),
      },
    });
    // https://<id>.execute-api.<region>.amazonaws.com/ → its host name.
    const apiHost = Fn.select(2, Fn.split("/", props.apiUrl));
    const api = new HttpOrigin(apiHost, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY });
    const apiBehavior = {
      origin: api,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    this.distribution = new Distribution(this, "Distribution", {
      comment: "meshplane console and API",
      defaultRootObject: "index.html",
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: logs,
      logFilePrefix: "cloudfront/",
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(site),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      additionalBehaviors: Object.fromEntries(API_PATHS.map((path) => [path, apiBehavior])),
    });

    // Assets carry their content hash in their names and are kept for a year; index.html, which names
    // them, is read again on every load. Old assets stay (an open tab may still ask for them).
    const dist = builtConsole();
    new BucketDeployment(this, "Assets", {
      sources: [Source.asset(dist, { exclude: ["index.html"] })],
      destinationBucket: site,
      prune: false,
      cacheControl: [CacheControl.fromString("public, max-age=31536000, immutable")],
    });
    new BucketDeployment(this, "Index", {
      sources: [Source.asset(dist, { exclude: ["*", "!index.html"] })],
      destinationBucket: site,
      prune: false,
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ["/index.html", "/"],
    });

    this.url = `https://${this.distribution.distributionDomainName}`;
    new CfnOutput(Stack.of(this), "ConsoleUrl", { value: this.url, description: "the web console (and the API on the same origin)" });
  }
}
