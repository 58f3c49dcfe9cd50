package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	meshconfig "istio.io/api/mesh/v1alpha1"
	"istio.io/istio/pilot/pkg/features"
	"istio.io/istio/pilot/pkg/serviceregistry/ambient"
	"istio.io/istio/pilot/pkg/serviceregistry/util/xdsfake"
	"istio.io/istio/pkg/activenotifier"
	"istio.io/istio/pkg/cluster"
	"istio.io/istio/pkg/config/constants"
	"istio.io/istio/pkg/config/mesh/meshwatcher"
	"istio.io/istio/pkg/config/schema/gvr"
	kubelib "istio.io/istio/pkg/kube"
	"istio.io/istio/pkg/kube/kclient/clienttest"
	"istio.io/istio/pkg/kube/krt"
	"istio.io/istio/pkg/kube/multicluster"
	"istio.io/istio/pkg/test"
	"istio.io/istio/pkg/workloadapi"
	"istio.io/istio/pkg/workloadapi/security"
)

// multiNetworkEnv turns on istiod's multi-network ambient multicluster (features.EnableAmbientMultiNetwork).
const multiNetworkEnv = "AMBIENT_ENABLE_MULTI_NETWORK"

// remoteClusterInput is a cluster the asked istiod reads through a remote secret: only its
// Kubernetes objects count (a remote istiod's mesh config and Istio objects are not read).
type remoteClusterInput struct {
	Cluster string `json:"cluster"`
	// Config is multi-document YAML of the objects generated for that cluster; its Gateway API
	// Gateways (the east-west gateway) are read from the remote cluster, the rest is ignored.
	Config string `json:"config"`
	// Kubernetes is as for ambientInput.
	Kubernetes string `json:"kubernetes"`
}

// ambientMulticlusterInput is one istiod of a multi-primary, multi-network ambient mesh: its own
// cluster (Local, whose mesh config and objects it reads) and the clusters it has remote secrets for.
type ambientMulticlusterInput struct {
	Local   ambientInput         `json:"local"`
	Remotes []remoteClusterInput `json:"remotes"`
}

type ambientMulticlusterOutput struct {
	// Validation is istiod's validation of the local cluster's config.
	Validation []validationResult `json:"validation"`
	// Enrolled is, per cluster, the pods Istio's CNI agent captures (see ambientOutput).
	Enrolled map[string][]string `json:"enrolled"`
	// EastWestGateways maps `<cluster>/<namespace>/<name>` of every istio-east-west Gateway to the
	// address the judge, standing in for that cluster's istiod, wrote in its status.
	EastWestGateways map[string]string `json:"eastWestGateways"`
	// Ztunnel is what the local istiod tells ztunnel in its cluster.
	Ztunnel ztunnelView `json:"ztunnel"`
}

// ensureAmbientMultiNetwork re-executes the judge with PILOT_ENABLE_AMBIENT and
// AMBIENT_ENABLE_MULTI_NETWORK true (Istio reads both once, at start), as ensureAmbient does.
func ensureAmbientMultiNetwork() {
	if os.Getenv(ambientEnv) == "true" && os.Getenv(multiNetworkEnv) == "true" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	fail(syscall.Exec(self, os.Args, append(os.Environ(), ambientEnv+"=true", multiNetworkEnv+"=true")))
}

// gatewayClasses are the GatewayClasses istiod creates with both flags on.
func gatewayClasses() []object {
	out := []object{}
	for _, name := range []string{constants.WaypointGatewayClassName, constants.EastWestGatewayClassName} {
		out = append(out, object{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
			"metadata": object{"name": name}, "spec": object{"controllerName": constants.ManagedGatewayMeshController}})
	}
	return out
}

// programEastWest stands in for a cluster's istiod deploying its east-west gateways (a
// LoadBalancer Service): each Gateway of class istio-east-west gets an IP address in its status,
// 172.30.<c>.<n>. Returns the addresses by `<cluster>/<namespace>/<name>`.
func programEastWest(objects []object, c int, clusterID string, into map[string]string) {
	n := 0
	for _, o := range objects {
		kind, ns, name := meta(o)
		if kind != "Gateway" || field(o, "spec")["gatewayClassName"] != constants.EastWestGatewayClassName {
			continue
		}
		n++
		ip := fmt.Sprintf("172.30.%d.%d", c, n)
		field(o, "status")["addresses"] = []any{object{"type": "IPAddress", "value": ip}}
		into[clusterID+"/"+ns+"/"+name] = ip
	}
}

// clusterObjects is one cluster's world as its API server holds it: the Kubernetes objects, the
// Gateway API Gateways among the generated config, the GatewayClasses, each emulated (emulate,
// programEastWest). Returns them as runtime objects, with the pods the CNI agent captures.
func clusterObjects(kubernetes, config string, c int, clusterID string, eastWest map[string]string) ([]runtime.Object, []string, error) {
	objects, err := parseDocs(kubernetes)
	if err != nil {
		return nil, nil, err
	}
	generated, err := parseDocs(config)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range generated {
		if kind, _, _ := meta(o); kind == "Gateway" && o["apiVersion"] == "gateway.networking.k8s.io/v1" {
			objects = append(objects, o)
		}
	}
	objects = append(objects, gatewayClasses()...)
	objects, enrolled, _, err := emulate(objects)
	if err != nil {
		return nil, nil, err
	}
	programEastWest(objects, c, clusterID, eastWest)
	decode := kubelib.IstioCodec.UniversalDeserializer().Decode
	out := make([]runtime.Object, 0, len(objects))
	for _, o := range objects {
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, nil, err
		}
		obj, _, err := decode(raw, nil, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("cluster %s: %w", clusterID, err)
		}
		out = append(out, obj)
	}
	return out, enrolled, nil
}

// ambientCRDs are the CRDs the ambient index waits for before it reads a cluster.
var ambientCRDs = []schema.GroupVersionResource{
	gvr.AuthorizationPolicy, gvr.PeerAuthentication, gvr.KubernetesGateway, gvr.GatewayClass, gvr.WorkloadEntry, gvr.ServiceEntry,
}

func fakeCluster(t test.Failer, objects []runtime.Object) kubelib.Client {
	client := kubelib.NewFakeClient(objects...)
	for _, crd := range ambientCRDs {
		clienttest.MakeCRD(t, client, crd)
	}
	return client
}

// remoteSecret is what `istioctl create-remote-secret` leaves in the local cluster for each remote
// one: a Secret labelled istio/multiCluster=true whose key is the remote cluster's ID. Its
// kubeconfig is never read: the multicluster controller's ClientBuilder returns the fake client.
func remoteSecret(namespace string, remotes []remoteClusterInput) runtime.Object {
	data := map[string]any{}
	for _, r := range remotes {
		data[r.Cluster] = []byte("kubeconfig of " + r.Cluster)
	}
	raw, _ := json.Marshal(object{"apiVersion": "v1", "kind": "Secret",
		"metadata": object{"name": "istio-remote-secrets", "namespace": namespace,
			"labels": object{multicluster.MultiClusterSecretLabel: "true"}},
		"data": data})
	obj, _, err := kubelib.IstioCodec.UniversalDeserializer().Decode(raw, nil, nil)
	if err != nil {
		panic(err)
	}
	return obj
}

// ztunnelSnapshot is the local istiod's WDS addresses and authorizations, sorted, in JSON.
func ztunnelSnapshot(idx ambient.Index) ztunnelView {
	addresses := idx.All()
	sort.Slice(addresses, func(i, j int) bool { return addresses[i].ResourceName() < addresses[j].ResourceName() })
	addrs := make([]*workloadapi.Address, 0, len(addresses))
	for _, a := range addresses {
		addrs = append(addrs, a.Address)
	}
	policies := idx.Policies(nil)
	sort.Slice(policies, func(i, j int) bool { return policies[i].ResourceName() < policies[j].ResourceName() })
	authz := make([]*security.Authorization, 0, len(policies))
	status := []policyStatus{}
	for _, p := range policies {
		authz = append(authz, p.Authorization)
		if st := p.Binding.Status; st != nil {
			status = append(status, policyStatus{Policy: p.ResourceName(), Reason: st.Reason, Message: st.Message})
		}
	}
	return ztunnelView{Addresses: marshalAll(addrs), Authorizations: marshalAll(authz), Status: status}
}

// settled polls the index until its answer has not changed for a second: the remote clusters'
// collections fill in after the index reports synced.
func settled(t test.Failer, idx ambient.Index) ztunnelView {
	var last []byte
	var view ztunnelView
	stable := 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		view = ztunnelSnapshot(idx)
		now, _ := json.Marshal(view)
		if bytes.Equal(now, last) {
			stable++
			if stable >= 20 {
				return view
			}
			continue
		}
		last, stable = now, 0
	}
	t.Fatal("the ambient index did not settle in 60s")
	return view
}

// runAmbientMulticluster builds istiod's ambient index as a multi-primary, multi-network istiod
// runs it (pilot/pkg/serviceregistry/ambient with a multicluster.Controller, as Istio's own
// ambientindex_multicluster_test.go does): the local cluster's fake API server holds a remote
// secret per remote cluster, and the controller's ClientBuilder returns that cluster's fake API
// server. It answers with what the local istiod tells ztunnel.
func runAmbientMulticluster(raw []byte) (any, error) {
	if !features.EnableAmbient || !features.EnableAmbientMultiNetwork {
		return nil, errors.New("run with " + ambientEnv + "=true and " + multiNetworkEnv + "=true")
	}
	var in ambientMulticlusterInput
	if err := decodeStrict(raw, &in); err != nil {
		return nil, err
	}
	if in.Local.Cluster == "" {
		return nil, errors.New("local.cluster is required")
	}
	meshConfig, validation, err := prepare(in.Local.MeshConfig, in.Local.Config)
	if err != nil {
		return nil, err
	}
	out := ambientMulticlusterOutput{Validation: validation, Enrolled: map[string][]string{}, EastWestGateways: map[string]string{}}
	localObjects, enrolled, err := clusterObjects(in.Local.Kubernetes, in.Local.Config, 1, in.Local.Cluster, out.EastWestGateways)
	if err != nil {
		return nil, err
	}
	out.Enrolled[in.Local.Cluster] = enrolled
	remoteObjects := map[cluster.ID][]runtime.Object{}
	for i, r := range in.Remotes {
		if r.Cluster == "" || r.Cluster == in.Local.Cluster || remoteObjects[cluster.ID(r.Cluster)] != nil {
			return nil, fmt.Errorf("remotes[%d]: cluster %q must be set, unique and not the local one", i, r.Cluster)
		}
		objects, enrolled, err := clusterObjects(r.Kubernetes, r.Config, i+2, r.Cluster, out.EastWestGateways)
		if err != nil {
			return nil, err
		}
		remoteObjects[cluster.ID(r.Cluster)] = objects
		out.Enrolled[r.Cluster] = enrolled
	}
	systemNamespace := meshConfig.GetRootNamespace()
	if len(in.Remotes) > 0 {
		localObjects = append(localObjects, remoteSecret(systemNamespace, in.Remotes))
	}
	err = test.Wrap(func(t test.Failer) {
		out.Ztunnel = multiclusterIndex(t, in.Local.Cluster, systemNamespace, meshConfig, localObjects, remoteObjects)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func multiclusterIndex(
	t test.Failer, local, systemNamespace string, meshConfig *meshconfig.MeshConfig,
	localObjects []runtime.Object, remoteObjects map[cluster.ID][]runtime.Object,
) ztunnelView {
	stop := test.NewStop(t)
	localClient := fakeCluster(t, localObjects)
	watcher := meshwatcher.NewTestWatcher(meshConfig)
	mc := multicluster.NewController(multicluster.ControllerOptions{
		Client:          localClient,
		ClusterID:       cluster.ID(local),
		SystemNamespace: systemNamespace,
		MeshConfig:      watcher,
		Debugger:        krt.GlobalDebugHandler,
		ClientBuilder: func(_ []byte, id cluster.ID, _ ...func(*rest.Config)) (kubelib.Client, error) {
			objects, ok := remoteObjects[id]
			if !ok {
				return nil, fmt.Errorf("no cluster %s", id)
			}
			return fakeCluster(t, objects), nil
		},
	})
	idx := ambient.New(ambient.Options{
		SystemNamespace:        systemNamespace,
		DomainSuffix:           "cluster.local",
		ClusterID:              cluster.ID(local),
		XDSUpdater:             xdsfake.NewFakeXDS(),
		MeshConfig:             watcher,
		StatusNotifier:         activenotifier.New(false),
		Debugger:               krt.GlobalDebugHandler,
		MultiClusterController: mc,
		Flags: ambient.FeatureFlags{
			DefaultAllowFromWaypoint:              features.DefaultAllowFromWaypoint,
			EnableK8SServiceSelectWorkloadEntries: features.EnableK8SServiceSelectWorkloadEntries,
		},
	})
	if err := mc.Run(stop); err != nil {
		t.Fatal(err)
	}
	localClient.RunAndWait(stop)
	go idx.Run(stop)
	if !kubelib.WaitForCacheSync("ambient multicluster", stop, mc.HasSynced, idx.HasSynced) {
		t.Fatal("the multicluster controller or the ambient index did not sync")
	}
	return settled(t, idx)
}
