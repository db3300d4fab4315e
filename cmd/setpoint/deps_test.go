package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The design card: setpoint is plain client-go. No package of
// controller-runtime may be compiled into the operator's module (its tests
// included), so `make test` fails the moment an import brings one in;
// hack/verify-deps.sh makes the same check for `make verify`.
func TestNoControllerRuntimeCompiledIn(t *testing.T) {
	pkgs := goLines(t, "list", "-deps", "-test", "./...")
	// An answer without client-go would be some other answer: a check
	// that finds nothing in it proves nothing.
	if !slices.Contains(pkgs, "k8s.io/client-go/tools/cache") {
		t.Fatalf("go list -deps lists %d packages, none k8s.io/client-go/tools/cache", len(pkgs))
	}
	for _, pkg := range pkgs {
		if pkg == "sigs.k8s.io/controller-runtime" || strings.HasPrefix(pkg, "sigs.k8s.io/controller-runtime/") {
			t.Errorf("%s is compiled into the operator's module: see `go mod why -m sigs.k8s.io/controller-runtime`", pkg)
		}
	}
}

// k8s.io/kubernetes is built only by test/controlplane, a module of its own;
// in the operator's module graph it would drag its replace-pinned staging
// modules into every consumer of setpoint's packages.
func TestModuleGraphHasNoKubernetes(t *testing.T) {
	mods := goLines(t, "list", "-m", "all")
	if !slices.ContainsFunc(mods, func(m string) bool { return strings.HasPrefix(m, "k8s.io/client-go ") }) {
		t.Fatalf("go list -m all lists %d modules, none k8s.io/client-go", len(mods))
	}
	for _, mod := range mods {
		if path, _, _ := strings.Cut(mod, " "); path == "k8s.io/kubernetes" {
			t.Errorf("%s is in the operator's module graph: see `go mod graph | grep k8s.io/kubernetes`", mod)
		}
	}
}

// goLines runs the go command at the root of the operator's module and
// returns its output's lines.
func goLines(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, exit.Stderr)
		}
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}
