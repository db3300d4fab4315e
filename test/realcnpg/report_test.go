package realcnpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// checkReport runs `kubectl setpoint report` on real CNPG's cluster and
// checks the bundle: the objects, real Pods' states and logs, the
// operator's lines about the namespace, and not one value of the
// namespace's Secrets (the roles' passwords, CNPG's keys) in any file.
func checkReport(t *testing.T, ns, cluster string) {
	t.Helper()
	out, errOut, err := kubectlSetpoint(t, ns, "report", cluster, "-f", "-")
	if err != nil {
		t.Fatalf("kubectl setpoint report: %v\n%s", err, errOut)
	}
	files := testkit.Bundle(t, out)
	for _, want := range []string{"README.txt", "status.txt", "explain.txt", "postgresclusters/" + cluster + ".yaml",
		"cnpg/clusters/" + cluster + ".yaml", "cnpg/poolers/" + cluster + "-pooler-rw.yaml", "secrets.yaml", "pods.yaml",
		"events.yaml", "logs/pods/" + cluster + "-1/postgres.log"} {
		if _, ok := files[want]; !ok {
			t.Errorf("bundle lacks %s (it has %d files)", want, len(files))
		}
	}
	if !strings.Contains(files["pods.yaml"], "name: "+cluster+"-1") || !strings.Contains(files["pods.yaml"], "phase: Running") {
		t.Errorf("pods.yaml:\n%s", files["pods.yaml"])
	}
	if len(files["logs/pods/"+cluster+"-1/postgres.log"]) == 0 {
		t.Error("the primary's log is empty")
	}
	// The operator's Pods are found (their log may hold no line about the
	// namespace at the default verbosity), and only such lines are kept.
	operatorLogs := 0
	for name, data := range files {
		if !strings.HasPrefix(name, "logs/operator/") {
			continue
		}
		operatorLogs++
		for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
			if line != "" && !strings.Contains(line, ns+"/") {
				t.Errorf("%s keeps a line about another namespace: %s", name, line)
			}
		}
	}
	if operatorLogs == 0 {
		t.Errorf("no log of the operator's Pods; README.txt:\n%s", files["README.txt"])
	}
	list, err := kube.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]map[string][]byte{}
	for _, s := range list.Items {
		secrets[s.Name] = s.Data
	}
	found, looked := testkit.SecretValuesIn(files, secrets)
	if looked == 0 {
		t.Fatal("no Secret value to look for: the check proved nothing")
	}
	for _, f := range found {
		t.Errorf("the bundle holds a Secret's value: %s", f)
	}
}

// checkRestart asks setpoint for a restart through the plugin and waits
// for real CNPG to act on what setpoint applied: the primary's Pod
// carries the request as its restartedAt, and the cluster is Ready again
// with its database Ready throughout the wait's end.
func checkRestart(t *testing.T, ns, cluster string) {
	t.Helper()
	id := time.Now().UTC().Format(time.RFC3339)
	if _, errOut, err := kubectlSetpoint(t, ns, "restart", cluster, "--id", id); err != nil {
		t.Fatalf("kubectl setpoint restart: %v\n%s", err, errOut)
	}
	kit.Eventually(t, 4*time.Minute, "CNPG restarts "+cluster+"-1 for the request", func(ctx context.Context) (bool, string, error) {
		pod, err := kube.CoreV1().Pods(ns).Get(ctx, cluster+"-1", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		got := pod.Annotations["kubectl.kubernetes.io/restartedAt"]
		return got == id, fmt.Sprintf("restartedAt %q on the Pod", got), nil
	})
	kit.WaitCluster(t, ns, cluster, pgv1.PhaseReady, 4*time.Minute)
}
