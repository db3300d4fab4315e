package chart

import (
	"fmt"
	"strings"

	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
)

// Lint runs `helm lint` on the chart in dir with values and returns every
// message at warning severity or above (INFO, such as a missing icon, is
// advice).
func Lint(dir, namespace string, values map[string]any) error {
	res := lint.RunAll(dir, values, namespace)
	var problems []string
	for _, m := range res.Messages {
		if m.Severity >= support.WarningSev {
			problems = append(problems, m.Error())
		}
	}
	if len(problems) != 0 {
		return fmt.Errorf("helm lint: %s", strings.Join(problems, "; "))
	}
	return nil
}
