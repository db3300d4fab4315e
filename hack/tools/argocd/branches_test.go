package argocd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/hack/tools/argocd"
)

// withStatus is a recorded object with its phase and one condition set:
// the states the e2e run does not reach, derived from objects it recorded.
func withStatus(t *testing.T, file, phase string, cond map[string]any) map[string]any {
	t.Helper()
	var obj map[string]any
	readYAML(t, filepath.Join(group, "testdata", file), &obj)
	status := obj["status"].(map[string]any)
	status["phase"] = phase
	var kept []any
	for _, c := range status["conditions"].([]any) {
		if c.(map[string]any)["type"] != cond["type"] {
			kept = append(kept, c)
		}
	}
	status["conditions"] = append(kept, cond)
	return obj
}

// The script's other branches, on recorded objects with one condition
// changed: a failed major upgrade is Degraded, a Ready cluster whose
// backups fail stays Healthy and says so, a deletion blocked by
// dependent objects is Degraded while one merely pending is
// Progressing, and a phase this script does not know is Unknown.
func TestHealthScriptBranches(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(group, "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	cond := func(typ, status, reason string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": "m"}
	}
	for name, tc := range map[string]struct {
		obj           map[string]any
		status, words string
	}{
		"upgrade failed":    {withStatus(t, "cluster_ready.yaml", "Ready", cond("MajorUpgrade", "False", "UpgradeFailed")), "Degraded", "UpgradeFailed: m"},
		"upgrade running":   {withStatus(t, "cluster_ready.yaml", "Ready", cond("MajorUpgrade", "False", "Upgrading")), "Progressing", "Upgrading: m"},
		"upgrade succeeded": {withStatus(t, "cluster_ready.yaml", "Ready", cond("MajorUpgrade", "True", "UpgradeSucceeded")), "Healthy", "AllComponentsReady"},
		"archiving failing": {withStatus(t, "cluster_ready.yaml", "Ready", cond("BackupHealthy", "False", "ArchivingFailing")), "Healthy", "; ArchivingFailing: m"},
		"cleanup blocked":   {withStatus(t, "database_ready.yaml", "Deleting", cond("Ready", "False", "RoleCleanupBlocked")), "Degraded", "RoleCleanupBlocked: m"},
		"cleanup pending":   {withStatus(t, "database_ready.yaml", "Deleting", cond("Ready", "False", "RoleCleanupPending")), "Progressing", "RoleCleanupPending: m"},
		"cluster deleting":  {withStatus(t, "database_ready.yaml", "Pending", cond("Ready", "False", "ClusterDeleting")), "Degraded", "ClusterDeleting: m"},
		"unknown phase":     {withStatus(t, "cluster_ready.yaml", "Hibernating", cond("Ready", "False", "X")), "Unknown", "Hibernating"},
	} {
		got, err := argocd.Run(string(script), tc.obj)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got.Status != tc.status || !strings.Contains(got.Message, tc.words) {
			t.Errorf("%s: %+v, want %s with %q", name, got, tc.status, tc.words)
		}
	}
}

// Run gives a script what Argo CD gives it and no more: the string
// library is not there, and a status Argo CD does not know is an error.
func TestRunIsArgoCDs(t *testing.T) {
	obj := map[string]any{"kind": "PostgresCluster"}
	if _, err := argocd.Run(`return {status = string.format("%s", "Healthy")}`, obj); err == nil {
		t.Error("string.format ran: Argo CD does not open the string library")
	}
	if _, err := argocd.Run(`return {status = "Fine"}`, obj); err == nil {
		t.Error("status Fine accepted")
	}
	if h, err := argocd.Run(`return {status = "Healthy", message = obj.kind}`, obj); err != nil || h.Message != "PostgresCluster" {
		t.Errorf("%+v, %v: want obj readable", h, err)
	}
}
