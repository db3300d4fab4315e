package bundle

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// redacted replaces a secret value.
const redacted = "[REDACTED]"

// minSecretLength: shorter Secret values ("true", "rw", a port) are not
// searched for; replacing them everywhere would garble the bundle, and
// they are not what a password is.
const minSecretLength = 6

// connectionPassword finds the password of a connection string that is
// in no Secret the plugin could read: the userinfo of a URI
// (scheme://user:PASSWORD@) and libpq's password=... keyword.
var connectionPassword = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s"']*:)[^@\s"']+@`), "${1}" + redacted + "@"},
	{regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('[^']*'|[^\s"']+)`), "${1}" + redacted},
}

// redactor holds the values to replace: every value of the namespace's
// Secrets it was shown.
type redactor struct{ values map[string]bool }

func newRedactor() *redactor { return &redactor{values: map[string]bool{}} }

// secret adds the values of one Secret's data.
func (r *redactor) secret(data map[string][]byte) {
	for k, v := range data {
		if naming.NotSecretKey(k) || len(v) < minSecretLength {
			continue
		}
		r.add(string(v))
		// A value with a trailing newline (a pgpass line) appears in
		// files without it too.
		if t := bytes.TrimSpace(v); len(t) >= minSecretLength {
			r.add(string(t))
		}
	}
}

// add adds v, and v as it appears inside a JSON string (Go escapes <, >
// and & there), where it differs.
func (r *redactor) add(v string) {
	r.values[v] = true
	if b, err := json.Marshal(v); err == nil {
		r.values[string(b[1:len(b)-1])] = true
	}
}

// apply returns data with every known value and every connection-string
// password replaced. Longer values first: a URI holding a password is
// replaced whole before the password inside it would be.
func (r *redactor) apply(data []byte) []byte {
	values := make([]string, 0, len(r.values))
	for v := range r.values {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
	for _, v := range values {
		data = bytes.ReplaceAll(data, []byte(v), []byte(redacted))
	}
	for _, p := range connectionPassword {
		data = p.re.ReplaceAll(data, []byte(p.with))
	}
	return data
}
