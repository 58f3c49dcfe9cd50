package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"syscall"

	listener "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	route "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"istio.io/istio/cni/pkg/util"
	"istio.io/istio/pilot/pkg/features"
	"istio.io/istio/pilot/pkg/model"
	"istio.io/istio/pilot/test/xds"
	"istio.io/istio/pilot/test/xdstest"
	"istio.io/istio/pkg/cluster"
	"istio.io/istio/pkg/test"
)

// ambientInput is one ambient istiod's world. Unlike xdsInput it names no proxies: every Gateway of
// class istio-waypoint in Kubernetes is a waypoint, and ztunnel's view covers the whole cluster.
type ambientInput struct {
	Cluster    string `json:"cluster"`
	MeshConfig string `json:"meshConfig"`
	// Config is multi-document YAML of Istio and Gateway API objects (ours and hand-written).
	Config string `json:"config"`
	// Kubernetes is multi-document YAML: Namespaces (with istio.io/dataplane-mode), Services, Pods,
	// EndpointSlices and waypoint Gateways, as the user and discovery see them.
	Kubernetes   string `json:"kubernetes"`
	IstioVersion string `json:"istioVersion"`
}

type policyStatus struct {
	Policy  string `json:"policy"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// ztunnelView is what istiod sends ztunnel: the WDS addresses (workloads and services) and the
// authorizations, as Istio's `security.Authorization`, with the status istiod writes on each policy.
type ztunnelView struct {
	Addresses      []json.RawMessage `json:"addresses"`
	Authorizations []json.RawMessage `json:"authorizations"`
	Status         []policyStatus    `json:"status"`
}

type ambientOutput struct {
	Validation []validationResult `json:"validation"`
	// Enrolled lists `<namespace>/<pod>` of the pods Istio's CNI agent captures (default selectors).
	Enrolled  []string               `json:"enrolled"`
	Ztunnel   ztunnelView            `json:"ztunnel"`
	Waypoints map[string]proxyOutput `json:"waypoints"`
}

const (
	ambientEnv       = "PILOT_ENABLE_AMBIENT"
	redirection      = "ambient.istio.io/redirection"
	gatewayNameLabel = "gateway.networking.k8s.io/gateway-name"
	managedLabel     = "gateway.istio.io/managed"
	meshController   = "istio.io-mesh-controller"
)

// ensureAmbient re-executes the judge with PILOT_ENABLE_AMBIENT=true: Istio reads its ambient flags
// once, when pilot/pkg/features initialises, so only the process environment turns them all on.
// Called before stdin is read, so the new process reads it.
func ensureAmbient() {
	if os.Getenv(ambientEnv) == "true" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	fail(syscall.Exec(self, os.Args, append(os.Environ(), ambientEnv+"=true")))
}

// defaultEnablement is istio-cni's default `ambient.enablementSelectors`
// (manifests/charts/istio-cni/values.yaml).
func defaultEnablement() *util.CompiledEnablementSelectors {
	mode := "istio.io/dataplane-mode"
	s, err := util.NewCompiledEnablementSelectors([]util.EnablementSelector{
		{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{mode: "ambient"}}},
		{
			PodSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: mode, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"none"}},
			}},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{mode: "ambient"}},
		},
	})
	if err != nil {
		panic(err)
	}
	return s
}

type object = map[string]any

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

func parseDocs(s string) ([]object, error) {
	var out []object
	for _, doc := range docSeparator.Split(s, -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			return nil, fmt.Errorf("kubernetes: %w", err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out, nil
}

func field(o object, path ...string) object {
	for _, p := range path {
		next, ok := o[p].(object)
		if !ok {
			next = object{}
			o[p] = next
		}
		o = next
	}
	return o
}

func meta(o object) (kind, namespace, name string) {
	m := field(o, "metadata")
	kind, _ = o["kind"].(string)
	namespace, _ = m["namespace"].(string)
	name, _ = m["name"].(string)
	return kind, namespace, name
}

// emulate stands in for the two controllers a cluster without them lacks: istio-cni marks each pod
// it captures `ambient.istio.io/redirection: enabled` (decided by Istio's own enablement selectors),
// and istiod's deployment controller programs each waypoint Gateway (status.addresses) and creates
// its Service (15008, appProtocol hbone) and pod. Returns the objects, the enrolled pods and the
// waypoints with their pods' IPs.
func emulate(objects []object) ([]object, []string, []*model.Proxy, error) {
	nsLabels := map[string]map[string]string{}
	for _, o := range objects {
		if kind, _, name := meta(o); kind == "Namespace" {
			labels := map[string]string{}
			for k, v := range field(o, "metadata", "labels") {
				labels[k], _ = v.(string)
			}
			nsLabels[name] = labels
		}
	}
	selectors := defaultEnablement()
	enrolled := []string{}
	var waypoints []*model.Proxy
	var added []object
	for _, o := range objects {
		kind, ns, name := meta(o)
		switch kind {
		case "Pod":
			raw, _ := json.Marshal(o)
			var pod corev1.Pod
			if err := json.Unmarshal(raw, &pod); err != nil {
				return nil, nil, nil, fmt.Errorf("pod %s/%s: %w", ns, name, err)
			}
			if ns != "kube-system" && selectors.Matches(&pod, nsLabels[ns]) {
				field(o, "metadata", "annotations")[redirection] = "enabled"
				enrolled = append(enrolled, ns+"/"+name)
			}
		case "Gateway":
			if field(o, "spec")["gatewayClassName"] != "istio-waypoint" {
				continue
			}
			i := len(waypoints) + 1
			ip := fmt.Sprintf("10.254.0.%d", i)
			host := name + "." + ns + ".svc.cluster.local"
			field(o, "status")["addresses"] = []any{object{"type": "Hostname", "value": host}}
			labels := object{gatewayNameLabel: name, managedLabel: meshController}
			added = append(added,
				object{"apiVersion": "v1", "kind": "Service",
					"metadata": object{"name": name, "namespace": ns, "labels": labels},
					"spec": object{"clusterIP": fmt.Sprintf("10.253.0.%d", i), "selector": object{gatewayNameLabel: name},
						"ports": []any{object{"name": "mesh", "port": 15008, "appProtocol": "hbone"}}}},
				object{"apiVersion": "v1", "kind": "Pod",
					"metadata": object{"name": name + "-0", "namespace": ns, "labels": labels},
					"spec":     object{"serviceAccountName": name, "containers": []any{object{"name": "istio-proxy", "image": "proxyv2"}}},
					"status": object{"phase": "Running", "podIP": ip, "podIPs": []any{object{"ip": ip}},
						"conditions": []any{object{"type": "Ready", "status": "True"}}}},
				object{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
					"metadata":    object{"name": name + "-slice", "namespace": ns, "labels": object{"kubernetes.io/service-name": name}},
					"addressType": "IPv4", "ports": []any{object{"name": "mesh", "port": 15008, "protocol": "TCP"}},
					"endpoints": []any{object{"addresses": []any{ip}, "conditions": object{"ready": true},
						"targetRef": object{"kind": "Pod", "name": name + "-0", "namespace": ns}}}},
			)
			proxyLabels := map[string]string{gatewayNameLabel: name, managedLabel: meshController}
			waypoints = append(waypoints, &model.Proxy{
				Type: model.Waypoint, ID: name + "-0." + ns, ConfigNamespace: ns, IPAddresses: []string{ip}, Labels: proxyLabels,
				Metadata: &model.NodeMetadata{Namespace: ns, Labels: proxyLabels},
			})
		}
	}
	sort.Strings(enrolled)
	return append(objects, added...), enrolled, waypoints, nil
}

func yamlDocs(objects []object) (string, error) {
	docs := make([]string, 0, len(objects))
	for _, o := range objects {
		b, err := yaml.Marshal(o)
		if err != nil {
			return "", err
		}
		docs = append(docs, string(b))
	}
	return strings.Join(docs, "---\n"), nil
}

// waypointRoutes is the route configuration inline in each filter chain of the waypoint's
// `main_internal` listener (a waypoint uses no RDS), named after its chain when Istio leaves it unnamed.
func waypointRoutes(t test.Failer, listeners []*listener.Listener) []*route.RouteConfiguration {
	var out []*route.RouteConfiguration
	for _, l := range listeners {
		if l.GetName() != "main_internal" {
			continue
		}
		for _, fc := range l.GetFilterChains() {
			rc := xdstest.ExtractHTTPConnectionManager(t, fc).GetRouteConfig()
			if rc == nil {
				continue
			}
			rc = proto.Clone(rc).(*route.RouteConfiguration)
			if rc.GetName() == "" {
				rc.Name = fc.GetName()
			}
			out = append(out, rc)
		}
	}
	return out
}

func runAmbient(raw []byte) (any, error) {
	if !features.EnableAmbient {
		return nil, errors.New("run with " + ambientEnv + "=true")
	}
	var in ambientInput
	if err := decodeStrict(raw, &in); err != nil {
		return nil, err
	}
	if in.Cluster == "" {
		in.Cluster = "Kubernetes"
	}
	if in.IstioVersion == "" {
		in.IstioVersion = "1.28.0"
	}
	meshConfig, validation, err := prepare(in.MeshConfig, in.Config)
	if err != nil {
		return nil, err
	}
	objects, err := parseDocs(in.Kubernetes)
	if err != nil {
		return nil, err
	}
	objects, enrolled, waypoints, err := emulate(objects)
	if err != nil {
		return nil, err
	}
	kube, err := yamlDocs(objects)
	if err != nil {
		return nil, err
	}
	// The ambient index and the Gateway API controller read only Kubernetes; VirtualServices and
	// DestinationRules come from the config store: both get everything, as Istio's waypoint tests do.
	all := kube + "\n---\n" + in.Config
	out := ambientOutput{Validation: validation, Enrolled: enrolled, Waypoints: map[string]proxyOutput{}}
	err = test.Wrap(func(t test.Failer) {
		s := xds.NewFakeDiscoveryServer(t, xds.FakeOptions{
			DefaultClusterName:     cluster.ID(in.Cluster),
			MeshConfig:             meshConfig,
			ConfigString:           all,
			KubernetesObjectString: all,
		})
		for _, w := range waypoints {
			w.Metadata.ClusterID = cluster.ID(in.Cluster)
			w.Metadata.IstioVersion = in.IstioVersion
			proxy := s.SetupProxy(w)
			listeners := s.Listeners(proxy)
			out.Waypoints[w.ConfigNamespace+"/"+w.Labels[gatewayNameLabel]] = proxyOutput{
				Listeners: marshalAll(listeners),
				Clusters:  marshalAll(s.Clusters(proxy)),
				Routes:    marshalAll(waypointRoutes(t, listeners)),
				Endpoints: marshalAll(s.Endpoints(proxy)),
			}
		}
		out.Ztunnel = ztunnelSnapshot(s.AmbientIndex)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
