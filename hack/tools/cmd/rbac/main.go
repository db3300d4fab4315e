// Command rbac writes setpoint's RBAC rules (hack/tools/rbac/rules.go)
// into the install manifest, the namespace-scoped overlay and the Helm
// chart (hack/update-manifests.sh runs it for `make generate`).
//
//	go run ./cmd/rbac -root ../..
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/setpoint-dev/setpoint/hack/tools/rbac"
)

func main() {
	root := flag.String("root", "../..", "the repository's root")
	flag.Parse()
	for path, data := range rbac.Files() {
		if err := os.WriteFile(filepath.Join(*root, path), data, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "rbac: %v\n", err)
			os.Exit(1)
		}
	}
}
