package realcnpg

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var clustersGVR = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusters"}

// TestPostgres17OnRealCNPG: the node's PostgreSQL 17 image (Debian 13's
// packages) runs under real CNPG. A Cluster made by hand, not through
// setpoint, names major 17 of the harness's ClusterImageCatalog: CNPG
// resolves the catalog's image, runs initdb and its instance manager in
// it, and the server says it is 17. The extensions the tests create
// (contrib's) are there and work for the database's owner.
func TestPostgres17OnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	start := time.Now()
	dyn := dynamic.NewForConfigOrDie(theNode.Config)
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1",
		"kind":       "Cluster",
		"metadata":   map[string]any{"name": "pg17", "namespace": ns},
		"spec": map[string]any{
			"instances": int64(1),
			"imageCatalogRef": map[string]any{
				"apiGroup": "postgresql.cnpg.io", "kind": "ClusterImageCatalog", "name": ImageCatalog, "major": int64(17),
			},
			"storage":    map[string]any{"size": "1Gi", "storageClass": "local"},
			"postgresql": map[string]any{"parameters": map[string]any{"shared_buffers": "32MB"}},
		},
	}}
	if _, err := dyn.Resource(clustersGVR).Namespace(ns).Create(t.Context(), cluster, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := setup.Images.Ref(PostgresImages[17])
	kit.Eventually(t, 5*time.Minute, "the major-17 Cluster healthy on "+want, func(ctx context.Context) (bool, string, error) {
		c, err := dyn.Resource(clustersGVR).Namespace(ns).Get(ctx, "pg17", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		phase, _, _ := unstructured.NestedString(c.Object, "status", "phase")
		image, _, _ := unstructured.NestedString(c.Object, "status", "image")
		ready, _, _ := unstructured.NestedInt64(c.Object, "status", "readyInstances")
		return phase == "Cluster in healthy state" && image == want && ready == 1,
			"phase " + phase + ", image " + image, nil
	})
	t.Logf("the major-17 Cluster healthy in %s", time.Since(start).Round(time.Second))
	pod, err := kube.CoreV1().Pods(ns).Get(t.Context(), "pg17-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pod.Spec.Containers[0].Image; got != want {
		t.Errorf("instance Pod runs %s, want the catalog's %s", got, want)
	}

	conn := kit.ConnectAs(t, ns, "pg17", "app", "pg17-app")
	var version string
	if err := conn.QueryRow(t.Context(), "SHOW server_version_num").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "17") || len(version) != 6 {
		t.Errorf("server_version_num %s, want 17xxxx", version)
	}
	_, tag, _ := strings.Cut(want, ":")
	var full string
	if err := conn.QueryRow(t.Context(), "SELECT current_setting('server_version')").Scan(&full); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(full, tag+" ") && full != tag {
		t.Errorf("server_version %q, want the image's tag %s", full, tag)
	}
	// The database's owner creates them: all three are trusted.
	for _, ext := range []string{"pg_trgm", "uuid-ossp", "pgcrypto"} {
		if _, err := conn.Exec(t.Context(), `CREATE EXTENSION "`+ext+`"`); err != nil {
			t.Errorf("CREATE EXTENSION %s: %v", ext, err)
		}
	}
	var similar bool
	var uuidLen, bytesLen int
	err = conn.QueryRow(t.Context(), "SELECT similarity('postgres', 'postgrse') > 0, length(uuid_generate_v4()::text), length(gen_random_bytes(8))").
		Scan(&similar, &uuidLen, &bytesLen)
	if err != nil || !similar || uuidLen != 36 || bytesLen != 8 {
		t.Errorf("the extensions' functions: similar %v, uuid length %d, bytes %d, err %v", similar, uuidLen, bytesLen, err)
	}
}
