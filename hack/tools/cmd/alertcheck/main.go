// Command alertcheck runs setpoint's alerts (charts/setpoint/files/alerts.yaml)
// with Prometheus' promql engine on scrapes of the operator's /metrics
// and prints, as JSON, the label sets each alert's expression returns at
// the last scrape. The scrapes are a JSON array of {at, body} on stdin.
// The e2e tier's TestAlertsOnOperatorScrapes runs it: Prometheus stays
// out of the operator's module.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/setpoint-dev/setpoint/hack/tools/alerts"
)

func main() {
	root := flag.String("root", "../..", "the repository's root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "alertcheck:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	content, err := os.ReadFile(filepath.Join(root, alerts.RulesFile))
	if err != nil {
		return err
	}
	groups, err := alerts.ParseRules(content)
	if err != nil {
		return err
	}
	var scrapes []alerts.Scrape
	if err := json.NewDecoder(os.Stdin).Decode(&scrapes); err != nil {
		return fmt.Errorf("read scrapes: %w", err)
	}
	firing, err := alerts.Evaluate(context.Background(), groups, scrapes)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(firing)
}
