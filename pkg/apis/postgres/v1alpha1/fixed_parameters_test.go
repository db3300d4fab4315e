package v1alpha1_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The CEL rule on postgresqlConfig spells out the list as a literal (a
// marker cannot refer to a Go value): both CRDs must list exactly
// FixedParameters.
func TestFixedParametersMatchCRD(t *testing.T) {
	for _, crd := range []string{"postgres.setpoint.dev_postgresclusters.yaml", "postgres.setpoint.dev_postgresclusterclasses.yaml"} {
		data, err := os.ReadFile("../../../../manifests/crd/" + crd)
		if err != nil {
			t.Fatal(err)
		}
		// YAML folds the long rule over lines and doubles single quotes.
		text := strings.Join(strings.Fields(string(data)), " ")
		m := regexp.MustCompile(`rule: self\.all\(k, !\(k\.lowerAscii\(\) in \[([^\]]*)\]\)\)`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s: no fixed-parameter rule", crd)
		}
		var inCRD []string
		for _, q := range strings.Split(m[1], ",") {
			inCRD = append(inCRD, strings.Trim(strings.TrimSpace(q), "'"))
		}
		want := slices.Sorted(slices.Values(pgv1.FixedParameters))
		if slices.Sort(inCRD); !slices.Equal(inCRD, want) {
			t.Errorf("%s lists %v\nwant FixedParameters %v", crd, inCRD, want)
		}
	}
}

func TestFixedParametersAreLowercaseAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range pgv1.FixedParameters {
		if p != strings.ToLower(p) || seen[p] {
			t.Errorf("%q: not lowercase or listed twice", p)
		}
		seen[p] = true
	}
	for _, p := range []string{"port", "listen_addresses", "archive_mode", "hot_standby", "cluster_name", "log_destination", "include_dir", "ssl"} {
		if !seen[p] {
			t.Errorf("%q missing", p)
		}
	}
}
