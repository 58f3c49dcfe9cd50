/** VirtualMesh: shared trust (roots, intermediates, rotation) and federation (selectors, east-west gateways). */
import { type Conversion, type Json, compact, isRecord } from "./conversion";
import { destinationSelectors, keepNarrow, meshRefs } from "./selectors";

// rsaKeySizeBytes 0 is proto3's unset: Gloo Mesh's default, 4096 ("Defaults to 4096", CommonCertOptions).
const KEY_ALGORITHMS: Record<string, string> = { "0": "RSA_4096", "2048": "RSA_2048", "4096": "RSA_4096" };
/** The key of a root Gloo Mesh generates when no size is given; meshplane's own default (ECDSA P-256) would change it. */
const GLOO_ROOT_KEY = "RSA_4096";

/** `mtlsConfig`: shared trust and pod restarts; limited trust and manual rotation checks dropped. */
export function mtls(value: unknown, path: string, c: Conversion): Json {
  const m = c.record(value, path, {
    keep: ["shared", "autoRestartPods", "rotationStrategy"],
    drop: {
      limited: "limited trust is not supported by meshplane (nor implemented in Gloo Mesh v1); use shared trust",
      rotationVerificationMethod:
        "meshplane rotates roots in phases (both roots trusted, then intermediates re-issued, then the old root dropped) without a manual verification step",
    },
  });
  if (m.rotationStrategy !== undefined && m.rotationStrategy !== "MULTI_ROOT") {
    c.drop(`${path}.rotationStrategy`, "meshplane always rotates roots in phases, as MULTI_ROOT does; a rotation without them is not offered");
  }
  return compact({ shared: m.shared === undefined ? undefined : sharedTrust(m.shared, `${path}.shared`, c), autoRestartPods: m.autoRestartPods });
}

// Both Gloo ways of bringing your own CA become meshplane's `external` root, whose key stays with you.
const AFTER_APPLY =
  "after applying, sign the VirtualMesh's CSR (GET /v1/virtualmeshes/<name>/ca/csr) and upload the chain (PUT /v1/virtualmeshes/<name>/ca/certificate)";
const CA_DROPS = {
  secret: `meshplane never holds your root key: imported as rootCertificateAuthority.external; ${AFTER_APPLY} with the CA in that Secret`,
  intermediateCertificateAuthority: `meshplane issues intermediates itself: imported as rootCertificateAuthority.external; ${AFTER_APPLY} with your Vault CA`,
};

function sharedTrust(value: unknown, path: string, c: Conversion): Json {
  const shared = c.record(value, path, {
    keep: ["rootCertificateAuthority", "intermediateCertOptions"],
    drop: { intermediateCertificateAuthority: CA_DROPS.intermediateCertificateAuthority },
  });
  let root: Json | undefined;
  if (shared.rootCertificateAuthority !== undefined) {
    const at = `${path}.rootCertificateAuthority`;
    const ca = c.record(shared.rootCertificateAuthority, at, { keep: ["generated"], drop: { secret: CA_DROPS.secret } });
    if (ca.generated !== undefined) root = { generated: certOptions(ca.generated, `${at}.generated`, c, "root") };
    else if (ca.secret !== undefined) root = { external: {} };
  }
  if (root === undefined && shared.intermediateCertificateAuthority !== undefined) root = { external: {} };
  // No CA named: Gloo Mesh generates a root with its defaults, so its key stays RSA 4096 here too.
  if (root === undefined) root = { generated: { keyAlgorithm: GLOO_ROOT_KEY } };
  return compact({
    rootCertificateAuthority: root,
    intermediateCertOptions:
      shared.intermediateCertOptions === undefined
        ? undefined
        : certOptions(shared.intermediateCertOptions, `${path}.intermediateCertOptions`, c, "intermediate"),
  });
}

/** Gloo CommonCertOptions, for the generated root or the intermediates. */
function certOptions(value: unknown, path: string, c: Conversion, role: "root" | "intermediate"): Json {
  const o = c.record(value, path, {
    keep: role === "root" ? ["ttlDays", "rsaKeySizeBytes", "orgName"] : ["ttlDays", "secretRotationGracePeriodRatio"],
    drop:
      role === "root"
        ? { secretRotationGracePeriodRatio: "meshplane rotates the root on its own phased schedule" }
        : {
            rsaKeySizeBytes: "intermediate keys are made in each cluster by the agent; meshplane chooses their type",
            orgName: "meshplane sets the intermediate certificate's subject",
          },
  });
  if (role === "intermediate") {
    // Gloo refreshes at `ratio` of the lifetime before expiry; meshplane counts days.
    const ratio = typeof o.secretRotationGracePeriodRatio === "number" ? o.secretRotationGracePeriodRatio : undefined;
    const ttl = typeof o.ttlDays === "number" ? o.ttlDays : 365;
    return compact({ ttlDays: o.ttlDays, rotateBeforeDays: ratio === undefined ? undefined : Math.round(ttl * ratio) });
  }
  // Named "bytes" in Gloo Mesh, but the documented default (4096) is a key size in bits.
  const size = o.rsaKeySizeBytes === undefined ? undefined : String(o.rsaKeySizeBytes);
  const keyAlgorithm = size === undefined ? GLOO_ROOT_KEY : KEY_ALGORITHMS[size];
  if (keyAlgorithm === undefined) {
    c.drop(
      `${path}.rsaKeySizeBytes`,
      "meshplane generates RSA 2048, RSA 4096 or ECDSA P-256 root keys; imported without a keyAlgorithm, so the root is ECDSA P-256 (meshplane's default): set keyAlgorithm to choose another",
    );
  }
  return compact({ ttlDays: o.ttlDays, keyAlgorithm, orgName: o.orgName });
}

/**
 * Whether the VirtualMesh leaves federation to the Gloo Mesh version: without `selectors` (or the
 * deprecated `permissive`), Gloo Mesh 1.0 federated every service of a VirtualMesh to its other
 * meshes and 1.1 federates none. Fields that only 1.1 and later have settle which one was meant.
 */
export function federatesByVersion(spec: Json): boolean {
  const f = isRecord(spec.federation) ? spec.federation : {};
  const m = isRecord(spec.mtlsConfig) ? spec.mtlsConfig : {};
  if (f.selectors !== undefined || f.permissive !== undefined) return false;
  return !SINCE_GLOO_1_1.federation.some((k) => f[k] !== undefined) && !SINCE_GLOO_1_1.mtlsConfig.some((k) => m[k] !== undefined);
}
const SINCE_GLOO_1_1 = {
  federation: ["ingressGatewaySelectors", "eastWestIngressGatewaySelectors", "tcpKeepalive"],
  mtlsConfig: ["rotationStrategy", "rotationVerificationMethod"],
};
/** Why `spec.federation` is reported when federatesByVersion: what Gloo Mesh 1.0 and 1.1 did differently. */
export const FEDERATION_BY_VERSION =
  "Gloo Mesh 1.1 and later federate nothing without selectors, and so does this import; Gloo Mesh 1.0 federated every service to every other mesh of the VirtualMesh: if this VirtualMesh was written for 1.0, add federation.selectors: [{}]";

/** `federation`: selectors (permissive as one selector of everything), the hostname suffix and east-west gateways. */
export function federation(value: unknown, path: string, c: Conversion): Json {
  const f = c.record(value, path, {
    keep: ["selectors", "permissive", "flatNetwork", "hostnameSuffix", "ingressGatewaySelectors", "eastWestIngressGatewaySelectors"],
    drop: { tcpKeepalive: "meshplane does not set TCP keepalive on federated traffic; set it with a DestinationRule of your own" },
  });
  if (f.flatNetwork === true) {
    c.drop(`${path}.flatNetwork`, "meshplane federates through east-west gateways only; a flat network is not supported");
  }
  let selectors: Json[] | undefined;
  if (f.selectors !== undefined) {
    selectors = c.list(f.selectors, `${path}.selectors`).map((item, i) => {
      const at = `${path}.selectors[${i}]`;
      const s = c.record(item, at, { keep: ["destinationSelectors", "meshes"] });
      const destinations = s.destinationSelectors === undefined ? undefined : destinationSelectors(s.destinationSelectors, `${at}.destinationSelectors`, c);
      return compact({
        destinationSelectors: destinations && keepNarrow(destinations, s.destinationSelectors, `${at}.destinationSelectors`, "destination", c),
        meshes: s.meshes === undefined ? undefined : meshRefs(s.meshes, `${at}.meshes`, c),
      });
    });
  } else if (f.permissive !== undefined) {
    selectors = [{}]; // the deprecated permissive mode: every destination to every mesh
  }
  const eastWestGateways = [
    ...gateways(f.eastWestIngressGatewaySelectors, `${path}.eastWestIngressGatewaySelectors`, c),
    ...gateways(f.ingressGatewaySelectors, `${path}.ingressGatewaySelectors`, c),
  ];
  return compact({ selectors, hostnameSuffix: f.hostnameSuffix, eastWestGateways: eastWestGateways.length > 0 ? eastWestGateways : undefined });
}

/**
 * Gloo's gateway selectors — `ingressGatewaySelectors {destinationSelectors, portName}`, and Gloo Mesh
 * 1.1's `eastWestIngressGatewaySelectors`, whose port is `gatewayTlsPortName` — one meshplane
 * east-west gateway entry per destination selector.
 */
function gateways(value: unknown, path: string, c: Conversion): Json[] {
  if (value === undefined) return [];
  const out: Json[] = [];
  c.list(value, path).forEach((item, i) => {
    const at = `${path}[${i}]`;
    const g = c.record(item, at, {
      keep: ["destinationSelectors", "portName", "gatewayTlsPortName"],
      drop: {
        meshes:
          "meshplane applies an east-west gateway entry to every mesh of the VirtualMesh; to keep this one to those meshes, add their clusters to its kubeServiceMatcher (clusters) or name the gateway Services in kubeServiceRefs",
      },
    });
    const port = g.gatewayTlsPortName === undefined ? "portName" : "gatewayTlsPortName";
    const portName = g[port];
    if (port === "gatewayTlsPortName" && g.portName !== undefined) {
      c.drop(`${at}.portName`, "set together with gatewayTlsPortName, which is the port name carried over; no Gloo Mesh version had both");
    }
    const selectors = destinationSelectors(g.destinationSelectors ?? [], `${at}.destinationSelectors`, c);
    if (selectors.length === 0 && portName !== undefined && portName !== "tls") {
      c.drop(
        `${at}.${port}`,
        "without destinationSelectors meshplane uses its default gateways and their port named tls; add a destinationSelector to use another port",
      );
    }
    for (const destinationSelector of selectors) out.push(compact({ destinationSelector, portName }));
  });
  return out;
}
