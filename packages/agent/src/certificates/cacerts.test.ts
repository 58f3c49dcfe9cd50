import { exportPrivateKeyPem, generateKeyPair } from "@meshplane/core";
import { beforeAll, describe, expect, it } from "vitest";
import { type CacertsMaterial, renewalReason } from "./cacerts";
import { issueIntermediate } from "./issue";
import { DAY, FakeControlPlane, NOW, crypto } from "../testing/fakes";

const ID = "spiffe://cluster.local/ns/istio-system/sa/istiod";
let cp: FakeControlPlane;
let held: CacertsMaterial;
let otherKey: string;

beforeAll(async () => {
  cp = await FakeControlPlane.create({ mesh: ID });
  held = await issueIntermediate({ client: cp, crypto, now: NOW }, cp.directive("mesh"));
  otherKey = await exportPrivateKeyPem(crypto, (await generateKeyPair(crypto, "ECDSA_P256")).privateKey);
});

describe("renewalReason", () => {
  it("is undefined for a cacerts that holds what the directive asks", () => {
    expect(renewalReason(held, cp.directive("mesh"), NOW)).toBeUndefined();
    expect(renewalReason(held, cp.directive("mesh"), new Date(NOW.getTime() + 300 * DAY))).toBeUndefined();
  });

  it.each([
    ["no cacerts", () => undefined, {}, NOW, /no cacerts/],
    ["files that do not parse", () => ({ ...held, caCert: "garbage" }), {}, NOW, /does not parse/],
    ["a key that is not the certificate's", () => ({ ...held, caKey: otherKey }), {}, NOW, /do not belong together/],
    ["another issuer", () => held, { issuer: `sha256:${"0".repeat(64)}` }, NOW, /issued by sha256:[0-9a-f]{64}, the directive names sha256:0+/],
    ["another trust bundle", () => held, { trustBundle: [`sha256:${"1".repeat(64)}`] }, NOW, /root-cert\.pem holds/],
    [
      "another identity",
      () => held,
      { identity: "spiffe://cluster.local/ns/istio-system/sa/istiod-1-24" },
      NOW,
      /names \[spiffe:\/\/cluster.local\/ns\/istio-system\/sa\/istiod\]/,
    ],
    ["another key algorithm", () => held, { keyAlgorithm: "RSA_2048" as const }, NOW, /key is ECDSA_P256, the directive asks for RSA_2048/],
    ["an expiry within rotateBeforeDays", () => held, {}, new Date(NOW.getTime() + 336 * DAY), /within 30 days/],
  ])("names %s", (_what, material, overrides, now, why) => {
    expect(renewalReason(material(), cp.directive("mesh", overrides), now)).toMatch(why);
  });
});
