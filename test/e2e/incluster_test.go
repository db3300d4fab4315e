package e2e_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// podScript is what a container runtime and the kubelet do for the
// operator's container, in a private mount and UTS namespace so the host
// is untouched: a tmpfs over /run (/var/run) holding the projected
// ServiceAccount volume (a bind mount, read-only), the Pod's hostname,
// then the binary as the securityContext's user and group, on a read-only
// root file system when it says so. The stand-in's host map directory is
// mounted too (see podHostMap).
const podScript = `set -e
sa_dir=$1 hostname=$2 uid=$3 gid=$4 hostmap_dir=$5 read_only_root=$6
shift 6
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/secrets/kubernetes.io/serviceaccount /run/setpoint-hostmap
mount --bind -o ro "$sa_dir" /run/secrets/kubernetes.io/serviceaccount
mount --bind -o ro "$hostmap_dir" /run/setpoint-hostmap
hostname "$hostname"
if [ "$read_only_root" = true ]; then mount -o remount,bind,ro /; fi
exec setpriv --reuid "$uid" --regid "$gid" --clear-groups --pdeathsig SIGKILL -- "$@"
`

// shippedDeployment is manifests/manager/deployment.yaml.
func shippedDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "manifests", "manager", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := yaml.UnmarshalStrict(data, d); err != nil {
		t.Fatalf("deployment.yaml: %v", err)
	}
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("deployment.yaml has %d containers, want 1", len(d.Spec.Template.Spec.Containers))
	}
	return d
}

// pod is one replica of the Deployment, run as a process.
type pod struct {
	*operatorProc
	hostname  string
	container corev1.Container
	// hostPorts maps the container's ports to the host ports they are
	// published on.
	hostPorts map[int32]int
}

// The shipped Deployment runs as the kubelet would run it: args, env and
// ports from deployment.yaml, GOMEMLIMIT resolved from the memory limit,
// the in-cluster configuration (KUBERNETES_SERVICE_HOST/PORT and a real
// TokenRequest token of the shipped ServiceAccount with the API server's
// CA in /var/run/secrets/kubernetes.io/serviceaccount), its user and
// group, its read-only root file system. Both replicas pass the manifest's liveness and readiness probes,
// exactly one holds the Lease, and it reconciles manifests/samples to
// Ready with the shipped RBAC.
func TestShippedDeploymentInCluster(t *testing.T) {
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	for _, tool := range []string{"unshare", "setpriv", "mount", "hostname"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run the Deployment as the kubelet would: %v", tool, err)
		}
	}
	if os.Geteuid() != 0 {
		t.Fatal("running the Deployment in private namespaces needs root")
	}
	if _, err := envtest.ApplyFiles(t.Context(), env.Config, "e2e", filepath.Join("..", "..", "manifests", "namespace.yaml")); err != nil {
		t.Fatal(err)
	}
	applyManifests(t, filepath.Join("..", "..", "manifests", "rbac"))
	d := shippedDeployment(t)
	root := podRoot(t)
	if err := os.MkdirAll(filepath.Dir(hostMap), 0o755); err != nil {
		t.Fatal(err)
	}
	saDir := serviceAccountVolume(t, root, d)

	replicas := int(ptr.Deref(d.Spec.Replicas, 1))
	if replicas != 2 {
		t.Fatalf("the Deployment runs %d replicas, want 2", replicas)
	}
	pods := make([]*pod, replicas)
	for i := range pods {
		pods[i] = startPod(t, d, root, saDir, fmt.Sprintf("%s-%d", d.Name, i))
	}
	reader := kit.MetricsReaderToken(t, d.Namespace)
	for _, p := range pods {
		p.metricsToken = reader
		p.probe(t, "liveness", p.container.LivenessProbe)
		p.probe(t, "readiness", p.container.ReadinessProbe)
	}

	for _, p := range pods {
		p.checkRuntime(t, d)
	}
	leader := leaderOf(t, d, pods)
	applySamples(t)
	kit.WaitCluster(t, "default", "shop", pgv1.PhaseReady, 180*time.Second)
	kit.WaitDatabase(t, "default", "shop-app", pgv1.PhaseReady, 180*time.Second)

	for _, p := range pods {
		passes := p.metric(t, "setpoint_reconcile_total")
		switch {
		case p == leader && passes == 0:
			t.Errorf("the leader %s ran no pass", p.hostname)
		case p != leader && passes != 0:
			t.Errorf("the standby %s ran %v passes", p.hostname, passes)
		}
		// Not the Forbidden count of setpoint_api_requests_total: watching
		// every namespace, the operator also meets what earlier tests left
		// in namespaces being deleted, where creates are refused with 403
		// too. TestShippedRBACSuffices counts them in a namespace of its own.
		if i := strings.Index(p.logs(), "is forbidden: User"); i >= 0 {
			t.Errorf("%s was refused by RBAC: %s", p.hostname, p.logs()[i:min(len(p.logs()), i+300)])
		}
		p.probe(t, "readiness", p.container.ReadinessProbe)
	}

	deleteSamples(t)

	// SIGTERM, as the kubelet stops a Pod: both exit, the leader releases.
	for _, p := range pods {
		p.signal(syscall.SIGTERM)
	}
	for _, p := range pods {
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not stop after SIGTERM:\n%s", p.hostname, p.logs())
		}
	}
}

// checkRuntime checks what the process ended up with: the user and group
// of the securityContext, and a Go memory limit equal to the container's
// memory limit in bytes (the GOMEMLIMIT the kubelet resolves).
func (p *pod) checkRuntime(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	uid, gid := runAs(t, d.Spec.Template.Spec.SecurityContext, p.container.SecurityContext)
	for _, want := range []string{fmt.Sprintf("Uid:\t%d\t%d", uid, uid), fmt.Sprintf("Gid:\t%d\t%d", gid, gid)} {
		if !strings.Contains(string(status), want) {
			t.Errorf("%s: /proc status lacks %q:\n%s", p.hostname, want, status)
		}
	}
	if sc := p.container.SecurityContext; sc != nil && ptr.Deref(sc.ReadOnlyRootFilesystem, false) {
		mounts, err := os.ReadFile(fmt.Sprintf("/proc/%d/mounts", p.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(mounts), "\n") {
			if f := strings.Fields(line); len(f) >= 4 && f[1] == "/" && !strings.HasPrefix(f[3], "ro") {
				t.Errorf("%s: root mounted %s, want read-only", p.hostname, f[3])
			}
		}
	}
	limit := p.container.Resources.Limits.Memory().Value()
	if got := p.metric(t, "go_gc_gomemlimit_bytes"); got != float64(limit) {
		t.Errorf("%s: Go memory limit %v, want the container's memory limit %d", p.hostname, got, limit)
	}
}

// podRoot is a directory the container's user can traverse, holding the
// binary (the image's entrypoint) and the ServiceAccount volume.
func podRoot(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("", "setpoint-pod-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(setpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "setpoint"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// serviceAccountVolume writes what the kubelet projects into
// /var/run/secrets/kubernetes.io/serviceaccount: a token of the
// Deployment's ServiceAccount from the TokenRequest API, the API server's
// CA and the namespace.
func serviceAccountVolume(t *testing.T, root string, d *appsv1.Deployment) string {
	t.Helper()
	sa := d.Spec.Template.Spec.ServiceAccountName
	tr, err := kube.CoreV1().ServiceAccounts(d.Namespace).CreateToken(t.Context(), sa, &authnv1.TokenRequest{
		Spec: authnv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for ServiceAccount %s/%s: %v", d.Namespace, sa, err)
	}
	dir := filepath.Join(root, "serviceaccount")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"token":     []byte(tr.Status.Token),
		"ca.crt":    env.Config.CAData,
		"namespace": []byte(d.Namespace),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// podHostMap is where podScript mounts the stand-in's host map.
const podHostMap = "/run/setpoint-hostmap/hostmap.json"

// startPod runs one replica.
func startPod(t *testing.T, d *appsv1.Deployment, root, saDir, hostname string) *pod {
	t.Helper()
	spec := d.Spec.Template.Spec
	c := spec.Containers[0]
	if len(c.Command) > 0 {
		t.Fatalf("the container overrides the image's entrypoint with %v", c.Command)
	}
	p := &pod{operatorProc: &operatorProc{name: hostname, done: make(chan struct{})},
		hostname: hostname, container: c, hostPorts: map[int32]int{}}
	args := p.publishPorts(t, c)
	uid, gid := runAs(t, spec.SecurityContext, c.SecurityContext)
	// The one arg the manifest does not have: on a cluster the operator
	// dials <cluster>-rw.<ns>.svc:5432 through cluster DNS and a Service;
	// here the stand-in's Postgres servers listen on loopback ports, which
	// its host map names (TLS is still verified with the service name).
	args = append(args, "--postgres-host-map="+podHostMap)
	cmdArgs := append([]string{"--mount", "--propagation", "private", "--uts", "sh", "-c", podScript, "sh",
		saDir, hostname, strconv.FormatInt(uid, 10), strconv.FormatInt(gid, 10), filepath.Dir(hostMap),
		strconv.FormatBool(c.SecurityContext != nil && ptr.Deref(c.SecurityContext.ReadOnlyRootFilesystem, false)),
		filepath.Join(root, "setpoint")}, args...)
	p.cmd = exec.Command("unshare", cmdArgs...)
	p.cmd.Env = podEnv(t, d, c)
	p.launch(t)
	if addr, ok := p.portAddr(t, "metrics"); ok {
		p.metricsAddr = addr
	}
	return p
}

// publishPorts gives each container port a free host port and rewrites the
// args that bind it. On a cluster every Pod has its own network namespace;
// here both replicas share the host's, so their ports are published on
// different host ports, as a container runtime's port mapping would. Every
// declared port must be bound by an arg: a manifest whose probes or
// metrics port name a port the binary does not listen on fails here.
func (p *pod) publishPorts(t *testing.T, c corev1.Container) []string {
	t.Helper()
	args := append([]string(nil), c.Args...)
	for _, port := range c.Ports {
		host := freePort(t)
		bound := false
		for i, a := range args {
			flag, addr, ok := strings.Cut(a, "=")
			if !ok || !strings.HasPrefix(flag, "--") {
				continue
			}
			if _, portText, err := net.SplitHostPort(addr); err == nil && portText == strconv.Itoa(int(port.ContainerPort)) {
				args[i] = flag + "=127.0.0.1:" + strconv.Itoa(host)
				bound = true
			}
		}
		if !bound {
			t.Fatalf("container port %s (%d) is bound by no arg of %v", port.Name, port.ContainerPort, c.Args)
		}
		p.hostPorts[port.ContainerPort] = host
	}
	return args
}

func freePort(t *testing.T) int {
	t.Helper()
	_, port, _ := net.SplitHostPort(freeAddr(t))
	n, _ := strconv.Atoi(port)
	return n
}

// portAddr is the host address of the container port whose name contains
// part.
func (p *pod) portAddr(t *testing.T, part string) (string, bool) {
	t.Helper()
	for _, port := range p.container.Ports {
		if strings.Contains(port.Name, part) {
			return "127.0.0.1:" + strconv.Itoa(p.hostPorts[port.ContainerPort]), true
		}
	}
	return "", false
}

// runAs is the user and group of the container: the container's
// securityContext over the Pod's.
func runAs(t *testing.T, podSC *corev1.PodSecurityContext, sc *corev1.SecurityContext) (int64, int64) {
	t.Helper()
	var uid, gid *int64
	if podSC != nil {
		uid, gid = podSC.RunAsUser, podSC.RunAsGroup
	}
	if sc != nil && sc.RunAsUser != nil {
		uid = sc.RunAsUser
	}
	if sc != nil && sc.RunAsGroup != nil {
		gid = sc.RunAsGroup
	}
	if uid == nil || gid == nil || *uid == 0 {
		t.Fatalf("the Deployment sets no non-root runAsUser/runAsGroup")
	}
	return *uid, *gid
}

// podEnv is the container's environment as the kubelet builds it: the
// manifest's env with references resolved, the Pod's HOSTNAME and the
// in-cluster API server address, and nothing of the test's own
// environment (a KUBECONFIG there would bypass the in-cluster path).
func podEnv(t *testing.T, d *appsv1.Deployment, c corev1.Container) []string {
	t.Helper()
	u, err := url.Parse(env.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"KUBERNETES_SERVICE_HOST=" + u.Hostname(),
		"KUBERNETES_SERVICE_PORT=" + u.Port(),
	}
	for _, e := range c.Env {
		out = append(out, e.Name+"="+envValue(t, d, c, e))
	}
	return out
}

func envValue(t *testing.T, d *appsv1.Deployment, c corev1.Container, e corev1.EnvVar) string {
	t.Helper()
	switch {
	case e.ValueFrom == nil:
		return e.Value
	case e.ValueFrom.ResourceFieldRef != nil:
		return resourceFieldValue(t, c, e.ValueFrom.ResourceFieldRef)
	case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
		return d.Namespace
	}
	t.Fatalf("env %s: this test does not resolve %+v", e.Name, e.ValueFrom)
	return ""
}

// resourceFieldValue resolves a resourceFieldRef as the kubelet does: the
// quantity divided by the divisor (default 1), rounded up; memory in bytes.
func resourceFieldValue(t *testing.T, c corev1.Container, ref *corev1.ResourceFieldSelector) string {
	t.Helper()
	if ref.ContainerName != "" && ref.ContainerName != c.Name {
		t.Fatalf("resourceFieldRef names container %s", ref.ContainerName)
	}
	kind, name, _ := strings.Cut(ref.Resource, ".")
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		// The kubelet would fall back to the node's allocatable, which a
		// test cannot mean: the manifest must set the limit.
		t.Fatalf("resourceFieldRef %s: the container sets no %s", ref.Resource, ref.Resource)
	}
	divisor := ref.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	if name == string(corev1.ResourceCPU) {
		return strconv.FormatInt(int64(math.Ceil(float64(q.MilliValue())/float64(divisor.MilliValue()))), 10)
	}
	return strconv.FormatInt(int64(math.Ceil(float64(q.Value())/float64(divisor.Value()))), 10)
}

// probe runs a manifest probe (HTTP GET on its path and named or numbered
// port) until it succeeds, as the kubelet would until the Pod is live or
// ready.
func (p *pod) probe(t *testing.T, what string, pr *corev1.Probe) {
	t.Helper()
	if pr == nil || pr.HTTPGet == nil {
		t.Fatalf("the container has no HTTP %s probe", what)
	}
	port := p.containerPort(t, pr.HTTPGet.Port)
	scheme := strings.ToLower(string(pr.HTTPGet.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	target := fmt.Sprintf("%s://127.0.0.1:%d%s", scheme, p.hostPorts[port], pr.HTTPGet.Path)
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		select {
		case <-p.done:
			return false, fmt.Errorf("%s exited", p.hostname)
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		// The kubelet counts 200-399 as success.
		return resp.StatusCode >= 200 && resp.StatusCode < 400, nil
	})
	if err != nil {
		t.Fatalf("%s: %s probe %s: %v (last: %s)\n%s", p.hostname, what, target, err, last, p.logs())
	}
}

func (p *pod) containerPort(t *testing.T, port intstr.IntOrString) int32 {
	t.Helper()
	if port.Type == intstr.Int {
		return port.IntVal
	}
	for _, cp := range p.container.Ports {
		if cp.Name == port.StrVal {
			return cp.ContainerPort
		}
	}
	t.Fatalf("probe port %q is not a container port", port.StrVal)
	return 0
}

// leaderOf waits until the Lease named by the Deployment's args (or the
// flag's default) is held by one of pods, and returns it. Identities are
// hostname_uuid, and each pod has its own hostname.
func leaderOf(t *testing.T, d *appsv1.Deployment, pods []*pod) *pod {
	t.Helper()
	ns, name := argValue(d, "--leader-election-namespace", "setpoint-system"), argValue(d, "--leader-election-id", "setpoint-leader")
	var leader *pod
	var holder string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := kube.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return false, nil
		}
		holder, leader = *l.Spec.HolderIdentity, nil
		matches := 0
		for _, p := range pods {
			if strings.HasPrefix(holder, p.hostname+"_") {
				leader = p
				matches++
			}
		}
		return matches == 1, nil
	})
	if err != nil {
		t.Fatalf("Lease %s/%s held by %q, not by exactly one replica", ns, name, holder)
	}
	return leader
}

func argValue(d *appsv1.Deployment, flag, def string) string {
	for _, a := range d.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return def
}

// applySamples applies manifests/samples as a user would.
func applySamples(t *testing.T) {
	t.Helper()
	applyManifests(t, filepath.Join("..", "..", "manifests", "samples"))
}

// deleteSamples deletes the samples while the operator runs, and what the
// cluster's Retain policy keeps.
func deleteSamples(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	if err := pg.PostgresV1alpha1().PostgresDatabases("default").Delete(ctx, "shop-app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Gone(t, "PostgresDatabase shop-app", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresDatabases("default").Get(ctx, "shop-app", metav1.GetOptions{})
		return err
	})
	if err := pg.PostgresV1alpha1().PostgresClusters("default").Delete(ctx, "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Gone(t, "PostgresCluster shop", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresClusters("default").Get(ctx, "shop", metav1.GetOptions{})
		return err
	})
	_ = pg.CNPGV1().Clusters("default").Delete(ctx, "shop", metav1.DeleteOptions{})
	_ = kube.CoreV1().Secrets("default").Delete(ctx, "shop-superuser", metav1.DeleteOptions{})
	_ = pg.PostgresV1alpha1().PostgresClusterClasses().Delete(ctx, "standard", metav1.DeleteOptions{})
}
