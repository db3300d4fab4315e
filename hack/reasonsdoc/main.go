// Command reasonsdoc writes docs/reference/reasons.md, the reference of
// every condition type, status reason and Event reason setpoint writes,
// from the constants of pkg/apis/postgres/v1alpha1 and their comments;
// with -advice, also the kubectl plugin's table of what to do per
// reason (pkg/kubectl/inspect/zz_generated.advice.go), from the same
// comments.
// It reads the source only (go/parser), so the table says what the code
// declares and nothing else; `make docs` runs it and
// hack/verify-docs.sh fails when the committed page is stale.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	api := flag.String("api", "pkg/apis/postgres/v1alpha1", "the API package's directory")
	out := flag.String("out", "docs/reference/reasons.md", "the page to write")
	advice := flag.String("advice", "", "the plugin's Go table of what to do per reason to write (none when empty)")
	advicePkg := flag.String("advice-package", "inspect", "the Go package of the -advice file")
	flag.Parse()
	if err := run(*api, *out, *advice, *advicePkg); err != nil {
		fmt.Fprintf(os.Stderr, "reasonsdoc: %v\n", err)
		os.Exit(1)
	}
}

func run(api, out, advice, advicePkg string) error {
	sections, err := parseDir(api)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(render(sections)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if advice == "" {
		return nil
	}
	src, err := renderAdvice(sections, advicePkg)
	if err != nil {
		return fmt.Errorf("render %s: %w", advice, err)
	}
	if err := os.WriteFile(advice, src, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", advice, err)
	}
	return nil
}
