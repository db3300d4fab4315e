package collector

import (
	"strconv"
	"strings"
)

// synchronousRequired is how many standbys a commit waits for under a
// synchronous_standby_names value, as Postgres reads it: "" waits for
// none; "[FIRST] n (names)" and "ANY n (names)" for n; a bare list of
// names for one (the first of them that streams). CloudNativePG writes
// the value from the Cluster's postgresql.synchronous, and lowers n to
// the standbys that are ready when dataDurability is preferred, so the
// setting itself, not the spec, says whether commits can wait now.
func synchronousRequired(names string) int {
	s := strings.TrimSpace(names)
	if s == "" {
		return 0
	}
	upper := strings.ToUpper(s)
	for _, method := range []string{"FIRST", "ANY"} {
		if strings.HasPrefix(upper, method) && len(s) > len(method) && (s[len(method)] == ' ' || s[len(method)] == '\t') {
			s = strings.TrimSpace(s[len(method):])
			break
		}
	}
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits > 0 && strings.HasPrefix(strings.TrimSpace(s[digits:]), "(") {
		n, err := strconv.Atoi(s[:digits])
		if err == nil {
			return n
		}
	}
	return 1
}
