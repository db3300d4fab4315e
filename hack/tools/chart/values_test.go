package chart_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
)

// A supported Kubernetes for the install dry runs.
const kube = "v1.35.0"

// strict decodes o into out, failing on any field out's type lacks: a
// misspelled field in a template is an error here, not a field the API
// server drops.
func strict(t *testing.T, o chart.Object, out any) {
	t.Helper()
	b, err := yaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, out); err != nil {
		t.Fatalf("%s: %v", chart.KeyOf(o), err)
	}
}

// selects fails unless every label of selector is one of labels.
func selects(t *testing.T, what string, selector, labels map[string]string) {
	t.Helper()
	for k, v := range selector {
		if labels[k] != v {
			t.Errorf("%s selects %s=%s; the target has %v", what, k, v, labels)
		}
	}
}

// offByDefault fails when the default values render the object key.
func offByDefault(t *testing.T, key string) {
	t.Helper()
	if _, ok := render(t, nil)[key]; ok {
		t.Errorf("%s rendered by default", key)
	}
}

func deployment(t *testing.T, got map[string]chart.Object) *appsDeployment {
	t.Helper()
	d := got["Deployment/"+namespace+"/setpoint"]
	if d == nil {
		t.Fatal("no Deployment")
	}
	var out appsDeployment
	strict(t, d, &out)
	return &out
}

// appsDeployment is the part of a Deployment these tests read.
type appsDeployment struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   map[string]any
	Spec       struct {
		Replicas any            `json:"replicas"`
		Selector map[string]any `json:"selector"`
		Template struct {
			Metadata struct {
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Spec corev1.PodSpec `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// A misspelled or mistyped value fails helm install and helm lint, at
// every level the chart reads: values.schema.json allows no property it
// does not name.
func TestSchemaRefusesMistakes(t *testing.T) {
	c := load(t)
	for name, tc := range map[string]struct {
		values map[string]any
		names  string // what the error must name
	}{
		"top level":            {map[string]any{"replicaCont": 3}, "replicaCont"},
		"image":                {map[string]any{"image": map[string]any{"tagg": "v1"}}, "tagg"},
		"serviceMonitor":       {map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabeld": true}}}, "enabeld"},
		"metrics.service":      {map[string]any{"metrics": map[string]any{"service": map[string]any{"enable": true}}}, "enable"},
		"networkPolicy":        {map[string]any{"networkPolicy": map[string]any{"enable": true}}, "enable"},
		"serviceAccount":       {map[string]any{"serviceAccount": map[string]any{"annotation": map[string]any{}}}, "annotation"},
		"crds":                 {map[string]any{"crds": map[string]any{"install": true}}, "install"},
		"prometheusRule":       {map[string]any{"prometheusRule": map[string]any{"enabeld": true}}, "enabeld"},
		"prometheusRule type":  {map[string]any{"prometheusRule": map[string]any{"labels": map[string]any{"a": 1}}}, "prometheusRule"},
		"imagePullSecrets":     {map[string]any{"imagePullSecrets": []any{map[string]any{"nmae": "regcred"}}}, "nmae"},
		"a string for a bool":  {map[string]any{"metrics": map[string]any{"secure": "yes"}}, "secure"},
		"logFormat":            {map[string]any{"logFormat": "yaml"}, "logFormat"},
		"selector label":       {map[string]any{"podLabels": map[string]any{"app.kubernetes.io/name": "x"}}, "app.kubernetes.io/name"},
		"health port":          {map[string]any{"metrics": map[string]any{"port": 8081}}, "port"},
		"digest":               {map[string]any{"image": map[string]any{"digest": "sha256:abc"}}, "digest"},
		"an argument, no flag": {map[string]any{"extraArgs": []any{"postgres-sample-interval=30s"}}, "extraArgs"},
	} {
		t.Run(name, func(t *testing.T) {
			err := chart.DryRunInstall(t.Context(), c, "setpoint", namespace, kube, tc.values)
			if err == nil || !strings.Contains(err.Error(), "schema") || !strings.Contains(err.Error(), tc.names) {
				t.Errorf("helm install with %v: %v, want a schema error naming %s", tc.values, err, tc.names)
			}
			if err := chart.Lint(chartDir, namespace, tc.values); err == nil || !strings.Contains(err.Error(), tc.names) {
				t.Errorf("helm lint with %v: %v, want an error naming %s", tc.values, err, tc.names)
			}
		})
	}
}

// allValues sets every value the chart has.
var allValues = map[string]any{
	"image":                  map[string]any{"repository": "registry.example/setpoint", "tag": "v9.9.9", "digest": "sha256:" + strings.Repeat("ab", 32), "pullPolicy": "Always"},
	"imagePullSecrets":       []any{map[string]any{"name": "regcred"}},
	"replicaCount":           3,
	"fullnameOverride":       "",
	"crds":                   map[string]any{"create": true},
	"serviceAccount":         map[string]any{"annotations": map[string]any{"iam.example.com/role": "setpoint"}},
	"resources":              map[string]any{"limits": map[string]any{"memory": "512Mi"}},
	"metrics":                map[string]any{"port": 9443, "secure": true, "service": map[string]any{"enabled": true}, "serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}, "interval": "30s", "scrapeTimeout": "10s", "tlsConfig": map[string]any{"serverName": "setpoint-metrics"}}},
	"logFormat":              "json",
	"podDisruptionBudget":    map[string]any{"enabled": true, "minAvailable": "50%"},
	"watchNamespaces":        []any{},
	"watchNamespaceSelector": map[string]any{"selector": "tenant=true", "rbac": "namespaced"},
	"extraArgs":              []any{"--postgres-sample-interval=30s"},
	"networkPolicy":          map[string]any{"enabled": true, "metricsFrom": []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}}, "egress": []any{map[string]any{"ports": []any{map[string]any{"port": 5432}}}}},
	"priorityClassName":      "system-cluster-critical",
	"nodeSelector":           map[string]any{"kubernetes.io/os": "linux"},
	"tolerations":            []any{map[string]any{"key": "dedicated", "operator": "Exists"}},
	"affinity":               map[string]any{},
	"podAnnotations":         map[string]any{"example.com/team": "data"},
	"podLabels":              map[string]any{"example.com/team": "data"},
	"prometheusRule":         map[string]any{"enabled": false, "labels": map[string]any{"release": "prometheus"}},
}

// Every value together installs and lints: the schema names each one
// the chart reads.
func TestEveryValueInstalls(t *testing.T) {
	if err := chart.DryRunInstall(t.Context(), load(t), "setpoint", namespace, kube, allValues); err != nil {
		t.Fatal(err)
	}
	if err := chart.Lint(chartDir, namespace, allValues); err != nil {
		t.Error(err)
	}
}

// kubeVersion is the supported range: CloudNativePG 1.30's 1.34 to 1.36,
// and 1.37, which setpoint's tests run on; helm install refuses others.
func TestKubeVersion(t *testing.T) {
	c := load(t)
	for v, ok := range map[string]bool{"v1.33.9": false, "v1.34.0": true, "v1.36.4": true, "v1.37.2": true, "v1.38.0": false} {
		err := chart.DryRunInstall(t.Context(), c, "setpoint", namespace, v, nil)
		if ok && err != nil {
			t.Errorf("Kubernetes %s: %v", v, err)
		}
		if !ok && (err == nil || !strings.Contains(err.Error(), "kubeVersion")) {
			t.Errorf("Kubernetes %s: %v, want refused for its kubeVersion", v, err)
		}
	}
}

// imagePullSecrets, priorityClassName, podLabels and the ServiceAccount's
// annotations reach the Pod and the ServiceAccount; the selector stays.
func TestPodValues(t *testing.T) {
	got := render(t, map[string]any{
		"imagePullSecrets":  []any{map[string]any{"name": "regcred"}},
		"priorityClassName": "system-cluster-critical",
		"podLabels":         map[string]any{"example.com/team": "data"},
		"serviceAccount":    map[string]any{"annotations": map[string]any{"iam.example.com/role": "setpoint"}},
	})
	d := deployment(t, got)
	pod := d.Spec.Template.Spec
	if !reflect.DeepEqual(pod.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "regcred"}}) {
		t.Errorf("imagePullSecrets = %v", pod.ImagePullSecrets)
	}
	if pod.PriorityClassName != "system-cluster-critical" {
		t.Errorf("priorityClassName = %q", pod.PriorityClassName)
	}
	if l := d.Spec.Template.Metadata.Labels; l["example.com/team"] != "data" || l["app.kubernetes.io/name"] != "setpoint" {
		t.Errorf("pod labels = %v", l)
	}
	if fmt.Sprint(d.Spec.Selector) != "map[matchLabels:map[app.kubernetes.io/name:setpoint]]" {
		t.Errorf("selector = %v: podLabels must not reach it (it is immutable)", d.Spec.Selector)
	}
	var sa corev1.ServiceAccount
	strict(t, got["ServiceAccount/"+namespace+"/setpoint"], &sa)
	if sa.Annotations["iam.example.com/role"] != "setpoint" {
		t.Errorf("ServiceAccount annotations = %v", sa.Annotations)
	}
}

// The metrics Service selects the operator's Pods and points at the
// container's metrics port by name, HTTPS or plain; off, it is gone, and
// a ServiceMonitor without it is refused.
func TestMetricsService(t *testing.T) {
	for _, secure := range []bool{true, false} {
		got := render(t, map[string]any{"metrics": map[string]any{"secure": secure, "port": 9090}})
		var svc corev1.Service
		strict(t, got["Service/"+namespace+"/setpoint-metrics"], &svc)
		pod := deployment(t, got).Spec.Template
		selects(t, "the Service", svc.Spec.Selector, pod.Metadata.Labels)
		ctrPort := pod.Spec.Containers[0].Ports[0]
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 9090 || svc.Spec.Ports[0].TargetPort.String() != ctrPort.Name || svc.Spec.Ports[0].Name != ctrPort.Name {
			t.Errorf("secure=%v: Service ports %+v, container port %+v", secure, svc.Spec.Ports, ctrPort)
		}
	}
	got := render(t, map[string]any{"metrics": map[string]any{"service": map[string]any{"enabled": false}}})
	if _, ok := got["Service/"+namespace+"/setpoint-metrics"]; ok {
		t.Error("metrics.service.enabled=false still renders the Service")
	}
	_, err := chart.Render(load(t), "setpoint", namespace, map[string]any{"metrics": map[string]any{"service": map[string]any{"enabled": false}, "serviceMonitor": map[string]any{"enabled": true}}})
	if err == nil || !strings.Contains(err.Error(), "metrics.service.enabled") {
		t.Errorf("a ServiceMonitor without the Service: %v, want refused", err)
	}
}

// The ServiceMonitor is a valid monitoring.coreos.com/v1 object (decoded
// strictly into the Prometheus Operator's own type) that selects the
// metrics Service and scrapes its port, with Prometheus' token over HTTPS.
func TestServiceMonitor(t *testing.T) {
	offByDefault(t, "ServiceMonitor/"+namespace+"/setpoint") // the Prometheus Operator is optional
	got := render(t, allValues)
	var sm monitoringv1.ServiceMonitor
	strict(t, got["ServiceMonitor/"+namespace+"/setpoint"], &sm)
	var svc corev1.Service
	strict(t, got["Service/"+namespace+"/setpoint-metrics"], &svc)
	selects(t, "the ServiceMonitor", sm.Spec.Selector.MatchLabels, svc.Labels)
	if sm.Labels["release"] != "prometheus" {
		t.Errorf("labels %v lack metrics.serviceMonitor.labels", sm.Labels)
	}
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("endpoints %+v", sm.Spec.Endpoints)
	}
	ep := sm.Spec.Endpoints[0]
	if ep.Port != svc.Spec.Ports[0].Name || ep.Path != "/metrics" || ep.Scheme == nil || *ep.Scheme != "https" ||
		string(ep.Interval) != "30s" || string(ep.ScrapeTimeout) != "10s" || ep.BearerTokenFile == "" { //nolint:staticcheck // the token Prometheus sends
		t.Errorf("endpoint %+v", ep)
	}
	if ep.TLSConfig == nil || ep.TLSConfig.ServerName == nil || *ep.TLSConfig.ServerName != "setpoint-metrics" {
		t.Errorf("tlsConfig %+v, want the given one", ep.TLSConfig)
	}
	plain := render(t, map[string]any{"metrics": map[string]any{"secure": false, "serviceMonitor": map[string]any{"enabled": true}}})
	var plainSM monitoringv1.ServiceMonitor
	strict(t, plain["ServiceMonitor/"+namespace+"/setpoint"], &plainSM)
	if ep := plainSM.Spec.Endpoints[0]; ep.Scheme == nil || *ep.Scheme != "http" || ep.BearerTokenFile != "" || ep.TLSConfig != nil || ep.Port != "http-metrics" { //nolint:staticcheck
		t.Errorf("plain HTTP endpoint %+v", ep)
	}
	secure := render(t, map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}})
	var secureSM monitoringv1.ServiceMonitor
	strict(t, secure["ServiceMonitor/"+namespace+"/setpoint"], &secureSM)
	if tls := secureSM.Spec.Endpoints[0].TLSConfig; tls == nil || tls.InsecureSkipVerify == nil || !*tls.InsecureSkipVerify {
		t.Errorf("default tlsConfig %+v: the operator's certificate is self-signed", tls)
	}
}

// The NetworkPolicy selects the operator's Pods and lets in only the
// metrics port (from metricsFrom) and the health port; egress is
// restricted only when rules are given.
func TestNetworkPolicy(t *testing.T) {
	offByDefault(t, "NetworkPolicy/"+namespace+"/setpoint")
	got := render(t, allValues)
	var np networkingv1.NetworkPolicy
	strict(t, got["NetworkPolicy/"+namespace+"/setpoint"], &np)
	pod := deployment(t, got).Spec.Template
	selects(t, "the NetworkPolicy", np.Spec.PodSelector.MatchLabels, pod.Metadata.Labels)
	var ports []string
	for _, r := range np.Spec.Ingress {
		for _, p := range r.Ports {
			ports = append(ports, p.Port.String())
		}
	}
	var ctrPorts []string
	for _, p := range pod.Spec.Containers[0].Ports {
		ctrPorts = append(ctrPorts, p.Name)
	}
	if !reflect.DeepEqual(ports, ctrPorts) {
		t.Errorf("ingress ports %v, want the container's %v", ports, ctrPorts)
	}
	if len(np.Spec.Ingress[0].From) != 1 || np.Spec.Ingress[0].From[0].NamespaceSelector == nil || len(np.Spec.Ingress[1].From) != 0 {
		t.Errorf("ingress %+v: metrics from metricsFrom, health from anywhere", np.Spec.Ingress)
	}
	if fmt.Sprint(np.Spec.PolicyTypes) != "[Ingress Egress]" || len(np.Spec.Egress) != 1 {
		t.Errorf("policyTypes %v, egress %+v", np.Spec.PolicyTypes, np.Spec.Egress)
	}
	open := render(t, map[string]any{"networkPolicy": map[string]any{"enabled": true}})
	var openNP networkingv1.NetworkPolicy
	strict(t, open["NetworkPolicy/"+namespace+"/setpoint"], &openNP)
	if fmt.Sprint(openNP.Spec.PolicyTypes) != "[Ingress]" || len(openNP.Spec.Ingress[0].From) != 0 || len(openNP.Spec.Egress) != 0 {
		t.Errorf("without metricsFrom and egress: policyTypes %v, ingress %+v", openNP.Spec.PolicyTypes, openNP.Spec.Ingress)
	}
}

// crds.create=false renders no CRD (another release or GitOps owns them).
func TestCRDsOff(t *testing.T) {
	for k := range render(t, map[string]any{"crds": map[string]any{"create": false}}) {
		if strings.HasPrefix(k, "CustomResourceDefinition/") {
			t.Errorf("crds.create=false renders %s", k)
		}
	}
}
