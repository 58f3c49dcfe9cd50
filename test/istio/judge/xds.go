package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	meshconfig "istio.io/api/mesh/v1alpha1"

	"istio.io/istio/pilot/pkg/config/kube/crd"
	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pkg/cluster"
	"istio.io/istio/pkg/config/mesh"
	"istio.io/istio/pkg/config/schema/collection"
	"istio.io/istio/pkg/config/schema/collections"
	"istio.io/istio/pkg/test"
)

// xdsInput is one istiod's world: its mesh config, the Istio objects it reads, the Kubernetes
// objects of its cluster, and the proxies to compute configuration for.
type xdsInput struct {
	Cluster string `json:"cluster"`
	// MeshConfig is YAML or JSON as in the `istio` ConfigMap's `mesh` key; defaults fill the rest.
	MeshConfig string `json:"meshConfig"`
	// Config is multi-document YAML of Istio objects (networking, security).
	Config string `json:"config"`
	// Kubernetes is multi-document YAML of Namespaces, Services, Pods and EndpointSlices.
	Kubernetes string       `json:"kubernetes"`
	Proxies    []proxyInput `json:"proxies"`
}

type proxyInput struct {
	// Name keys the output.
	Name string `json:"name"`
	// Type is "sidecar" or "router" (a gateway).
	Type           string            `json:"type"`
	IP             string            `json:"ip"`
	Namespace      string            `json:"namespace"`
	Labels         map[string]string `json:"labels"`
	ServiceAccount string            `json:"serviceAccount"`
	IstioVersion   string            `json:"istioVersion"`
}

type validationResult struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Error     string `json:"error,omitempty"`
	Warning   string `json:"warning,omitempty"`
}

type proxyOutput struct {
	Listeners []json.RawMessage `json:"listeners"`
	Clusters  []json.RawMessage `json:"clusters"`
	Routes    []json.RawMessage `json:"routes"`
	Endpoints []json.RawMessage `json:"endpoints"`
}

type xdsOutput struct {
	Validation []validationResult     `json:"validation"`
	Proxies    map[string]proxyOutput `json:"proxies"`
}

// validate runs, with the schemas of `schemas`, istiod's validation (the admission webhook's checks) over every object.
func validate(configYAML string, schemas collection.Schemas) ([]validationResult, error) {
	configs, _, err := crd.ParseInputs(configYAML)
	if err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	out := make([]validationResult, 0, len(configs))
	for _, cfg := range configs {
		r := validationResult{Kind: cfg.GroupVersionKind.Kind, Namespace: cfg.Namespace, Name: cfg.Name}
		schema, ok := schemas.FindByGroupVersionAliasesKind(cfg.GroupVersionKind)
		if !ok {
			r.Error = "no schema for " + cfg.GroupVersionKind.String()
		} else {
			warning, err := schema.ValidateConfig(cfg)
			if err != nil {
				r.Error = err.Error()
			}
			if warning != nil {
				r.Warning = warning.Error()
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out, nil
}

func marshalAll[T proto.Message](items []T) []json.RawMessage {
	opts := protojson.MarshalOptions{UseProtoNames: false}
	out := make([]json.RawMessage, 0, len(items))
	for _, item := range items {
		b, err := opts.Marshal(item)
		if err != nil {
			panic(err)
		}
		// protojson output is deliberately unstable in whitespace; compact it.
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			panic(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

func proxyModel(p proxyInput, clusterID string) (*model.Proxy, error) {
	proxyType := model.SidecarProxy
	switch p.Type {
	case "sidecar", "":
	case "router":
		proxyType = model.Router
	default:
		return nil, fmt.Errorf("proxy %s: type must be sidecar or router, not %q", p.Name, p.Type)
	}
	if p.IP == "" || p.Namespace == "" {
		return nil, fmt.Errorf("proxy %s: ip and namespace are required", p.Name)
	}
	version := p.IstioVersion
	if version == "" {
		version = "1.28.0"
	}
	return &model.Proxy{
		Type:            proxyType,
		ID:              p.Name + "." + p.Namespace,
		IPAddresses:     []string{p.IP},
		ConfigNamespace: p.Namespace,
		Labels:          p.Labels,
		Metadata: &model.NodeMetadata{
			Namespace:    p.Namespace,
			Labels:       p.Labels,
			ClusterID:    cluster.ID(clusterID),
			IstioVersion: version,
		},
	}, nil
}

// prepare reads a mesh config (YAML or JSON; Istio's defaults fill the rest) and validates the
// config objects, Istio's and Gateway API's, as istiod does.
func prepare(meshConfigYAML, configYAML string) (*meshconfig.MeshConfig, []validationResult, error) {
	meshConfig := mesh.DefaultMeshConfig()
	if meshConfigYAML != "" {
		m, err := mesh.ApplyMeshConfigDefaults(meshConfigYAML)
		if err != nil {
			return nil, nil, fmt.Errorf("meshConfig: %w", err)
		}
		meshConfig = m
	}
	validation, err := validate(configYAML, collections.PilotGatewayAPI())
	return meshConfig, validation, err
}

func runXds(raw []byte) (any, error) {
	var in xdsInput
	if err := decodeStrict(raw, &in); err != nil {
		return nil, err
	}
	if in.Cluster == "" {
		in.Cluster = "Kubernetes"
	}
	meshConfig, validation, err := prepare(in.MeshConfig, in.Config)
	if err != nil {
		return nil, err
	}
	out := xdsOutput{Validation: validation, Proxies: map[string]proxyOutput{}}
	err = test.Wrap(func(t test.Failer) {
		s := xds.NewFakeDiscoveryServer(t, xds.FakeOptions{
			DefaultClusterName:     cluster.ID(in.Cluster),
			MeshConfig:             meshConfig,
			ConfigString:           in.Config,
			KubernetesObjectString: in.Kubernetes,
		})
		for _, p := range in.Proxies {
			proxy, err := proxyModel(p, in.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			proxy = s.SetupProxy(proxy)
			listeners := s.Listeners(proxy)
			out.Proxies[p.Name] = proxyOutput{
				Listeners: marshalAll(listeners),
				Clusters:  marshalAll(s.Clusters(proxy)),
				Routes:    marshalAll(s.RoutesFromListeners(proxy, listeners)),
				Endpoints: marshalAll(s.Endpoints(proxy)),
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
