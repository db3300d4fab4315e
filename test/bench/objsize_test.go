package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func TestObjectSizeAddsKindAndDropsManagedFields(t *testing.T) {
	// A list of a built-in kind leaves apiVersion and kind out of its items.
	item := `{"metadata":{"name":"s1","managedFields":[{"manager":"setpoint"}]},"data":{"password":"YQ=="},"note":"<&>"}`
	name, size, noMF, err := objectSize(json.RawMessage(item), "v1", "Secret")
	if err != nil {
		t.Fatal(err)
	}
	withKind := `{"apiVersion":"v1","data":{"password":"YQ=="},"kind":"Secret","metadata":{"managedFields":[{"manager":"setpoint"}],"name":"s1"},"note":"<&>"}`
	if name != "s1" || size != len(withKind) {
		t.Errorf("objectSize = %q, %d; want s1, %d", name, size, len(withKind))
	}
	if want := size - len(`"managedFields":[{"manager":"setpoint"}],`); noMF != want {
		t.Errorf("without managedFields %d; want %d", noMF, want)
	}
}

func TestMeasureObjectSizes(t *testing.T) {
	var selectors []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/apis/postgres.setpoint.dev/v1alpha1/namespaces/ns/postgresdatabases":
			if r.URL.Query().Get("labelSelector") != "" {
				t.Errorf("PostgresDatabases listed with a selector: %s", r.URL)
			}
			w.Write([]byte(`{"items":[{"apiVersion":"postgres.setpoint.dev/v1alpha1","kind":"PostgresDatabase","metadata":{"name":"a"},"spec":{"clusterRef":{"name":"c0"}}},` +
				`{"apiVersion":"postgres.setpoint.dev/v1alpha1","kind":"PostgresDatabase","metadata":{"name":"b"},"spec":{"clusterRef":{"name":"c0"}}},` +
				`{"apiVersion":"postgres.setpoint.dev/v1alpha1","kind":"PostgresDatabase","metadata":{"name":"c"},"spec":{"clusterRef":{"name":"c1"}}}]}`))
		case "/apis/postgresql.cnpg.io/v1/namespaces/ns/databaseroles":
			selectors = append(selectors, r.URL.Query().Get("labelSelector"))
			w.Write([]byte(`{"items":[{"apiVersion":"postgresql.cnpg.io/v1","kind":"DatabaseRole","metadata":{"name":"c0.x-admin"},"spec":{"comment":"` +
				strings.Repeat("x", 500) + `"}}]}`))
		case "/api/v1/namespaces/ns/secrets":
			w.Write([]byte(`{"items":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	sizes, perCluster, err := measureObjectSizes(context.Background(), kube.CoreV1().RESTClient(), "ns")
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 2 || sizes[0].kind != "DatabaseRole" || sizes[0].name != "c0.x-admin" || sizes[1].kind != "PostgresDatabase" || sizes[1].objects != 3 {
		t.Fatalf("sizes = %+v; want the DatabaseRole first, then the 3 PostgresDatabases' largest", sizes)
	}
	if perCluster != 2 {
		t.Errorf("databases per cluster = %d; want 2", perCluster)
	}
	if len(selectors) != 1 || selectors[0] != "app.kubernetes.io/managed-by=setpoint" {
		t.Errorf("DatabaseRoles listed with selectors %q; want setpoint's label", selectors)
	}
	fig := map[string]float64{}
	lines := objectSizeFigures(fig, sizes, perCluster)
	if fig["largest_object_bytes"] != float64(sizes[0].bytes) || len(lines) != 2 || !strings.Contains(lines[0], "c0.x-admin") {
		t.Errorf("figures %v, lines %q", fig, lines)
	}
}
