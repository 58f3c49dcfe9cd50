package main

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"istio.io/istio/security/pkg/pki/ca"
	"istio.io/istio/security/pkg/pki/util"
)

// caInput is a set of meshes, each with the four files of its `cacerts` Secret and the identity of a
// workload to issue a certificate to, as istiod would for a sidecar's CSR.
type caInput struct {
	Meshes []caMesh `json:"meshes"`
}

type caMesh struct {
	Name             string `json:"name"`
	CaCert           string `json:"caCert"`
	CaKey            string `json:"caKey"`
	CertChain        string `json:"certChain"`
	RootCert         string `json:"rootCert"`
	WorkloadIdentity string `json:"workloadIdentity"`
}

type caMeshOutput struct {
	Error string `json:"error,omitempty"`
	// WorkloadCertChain is the leaf followed by the chain istiod sends a sidecar.
	WorkloadCertChain string `json:"workloadCertChain,omitempty"`
	// RootBundle is what istiod distributes as the mesh's trust bundle (istio-ca-root-cert).
	RootBundle string `json:"rootBundle,omitempty"`
}

type verifyResult struct {
	Workload    string `json:"workload"`
	TrustBundle string `json:"trustBundle"`
	OK          bool   `json:"ok"`
	Error       string `json:"error,omitempty"`
}

type caOutput struct {
	Meshes map[string]caMeshOutput `json:"meshes"`
	Verify []verifyResult          `json:"verify"`
}

// loadAndSign loads one mesh's cacerts exactly as istiod's plugged-cert CA does and signs a
// workload certificate for the given SPIFFE identity.
func loadAndSign(dir string, m caMesh) (caMeshOutput, error) {
	files := map[string]string{"ca-cert.pem": m.CaCert, "ca-key.pem": m.CaKey, "cert-chain.pem": m.CertChain, "root-cert.pem": m.RootCert}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			return caMeshOutput{}, err
		}
	}
	opts, err := ca.NewPluggedCertIstioCAOptions(ca.SigningCAFileBundle{
		RootCertFile:    filepath.Join(dir, "root-cert.pem"),
		CertChainFiles:  []string{filepath.Join(dir, "cert-chain.pem")},
		SigningCertFile: filepath.Join(dir, "ca-cert.pem"),
		SigningKeyFile:  filepath.Join(dir, "ca-key.pem"),
	}, 24*time.Hour, 90*24*time.Hour, 2048)
	if err != nil {
		return caMeshOutput{}, err
	}
	istioCA, err := ca.NewIstioCA(opts)
	if err != nil {
		return caMeshOutput{}, err
	}
	csr, _, err := util.GenCSR(util.CertOptions{Host: m.WorkloadIdentity, ECSigAlg: util.EcdsaSigAlg})
	if err != nil {
		return caMeshOutput{}, err
	}
	chain, err := istioCA.SignWithCertChain(csr, ca.CertOpts{SubjectIDs: []string{m.WorkloadIdentity}, TTL: time.Hour})
	if err != nil {
		return caMeshOutput{}, err
	}
	out := caMeshOutput{RootBundle: string(istioCA.GetCAKeyCertBundle().GetRootCertPem())}
	for _, c := range chain {
		out.WorkloadCertChain += c
	}
	return out, nil
}

func parseCerts(pemText string) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	rest := []byte(pemText)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("no certificate")
	}
	return certs, nil
}

// verifyAcross checks that a sidecar trusting `bundle` accepts a peer presenting `chain`, as Envoy
// does: the leaf chains to one of the bundle's roots through the intermediates the peer sends.
func verifyAcross(chain, bundle string) error {
	certs, err := parseCerts(chain)
	if err != nil {
		return fmt.Errorf("workload chain: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(bundle)) {
		return fmt.Errorf("trust bundle has no certificate")
	}
	intermediates := x509.NewCertPool()
	for _, c := range certs[1:] {
		intermediates.AddCert(c)
	}
	_, err = certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err
}

func runCa(raw []byte) (any, error) {
	var in caInput
	if err := decodeStrict(raw, &in); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "judge-ca")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := caOutput{Meshes: map[string]caMeshOutput{}, Verify: []verifyResult{}}
	for i, m := range in.Meshes {
		dir := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, err
		}
		result, err := loadAndSign(dir, m)
		if err != nil {
			result.Error = err.Error()
		}
		out.Meshes[m.Name] = result
	}
	names := make([]string, 0, len(out.Meshes))
	for name := range out.Meshes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, w := range names {
		for _, b := range names {
			wl, tb := out.Meshes[w], out.Meshes[b]
			if wl.Error != "" || tb.Error != "" {
				continue
			}
			r := verifyResult{Workload: w, TrustBundle: b, OK: true}
			if err := verifyAcross(wl.WorkloadCertChain, tb.RootBundle); err != nil {
				r.OK, r.Error = false, err.Error()
			}
			out.Verify = append(out.Verify, r)
		}
	}
	return out, nil
}
