package realcnpg

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/test/demo"
)

// `make demo CNPG=real` works: the samples, fitted to the node, become
// Ready and usable on real CloudNativePG — two instances, a pooler, backups
// to the node's S3 store, a metrics Service — through the demo's own code
// (test/demo), here on the tier's node (the demo command starts a node of
// its own, with realcnpg.Start as TestMain does). The samples live in
// namespace default, which no other test uses; the node goes with them.
// Its two instances also serve the collector's test on a real replica.
func TestDemoOnRealCNPG(t *testing.T) {
	t.Parallel()
	site := demo.NodeSite{PostgresImage: setup.Images.Ref("postgresql"), StorageClass: "local", S3Endpoint: S3Endpoint, S3Bucket: S3Bucket}
	var out bytes.Buffer
	err := demo.Run(t.Context(), &out, demo.Options{Config: theNode.Config, Samples: filepath.Join("..", "..", "manifests", "samples"),
		Fit: site.Fit, Connect: demo.NodeConnector(kube, theNode.Dial), Timeout: 10 * time.Minute})
	if err != nil {
		describe(t, demo.Namespace)
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "SELECT count(*) FROM items -> 1") {
		t.Fatalf("the demo did not show a usable database:\n%s", out.String())
	}
	t.Logf("the demo on real CloudNativePG:\n%s", out.String())
	t.Run("the collector reads the replica's replay lag", func(t *testing.T) { collectorSeesTheReplica(t, demo.Namespace, demo.Cluster) })
}
