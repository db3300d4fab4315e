package operator

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProfilingServesTheHeapProfile(t *testing.T) {
	srv := httptest.NewServer(profilingHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "heap profile") {
		t.Fatalf("GET heap: %s\n%.200s", resp.Status, body)
	}
}

func TestProfilingIsOffByDefault(t *testing.T) {
	for _, addr := range []string{"", "0"} {
		got, err := serve(t.Context(), addr, profilingHandler(), nil)
		if err != nil || got != "" {
			t.Errorf("serve(%q) = %q, %v; want nothing served", addr, got, err)
		}
	}
}
