package commands

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The plugin hands a password to psql alone, through its environment
// (TestPsqlEnv), and prints one only when asked to (conn --show-password).
// Every command of the root, alone and with each of its flags in turn, on
// every object of every fixture world, is run here and its stdout, stderr
// and error are scanned for every Secret value that is not public.
// Commands and flags come from the command tree itself: a new one is
// covered without editing this test, and one it does not know how to run
// fails it.
func TestNoCommandPrintsACredential(t *testing.T) {
	// psql is stood in for by a program that prints nothing: what is
	// scanned is the plugin's own output.
	psql, err := exec.LookPath("true")
	if err != nil {
		t.Fatalf("a stand-in for psql: %v", err)
	}
	// What a command writes to a file (report's bundle) is scanned too,
	// from a directory of the test's own.
	t.Chdir(t.TempDir())
	variants := commandVariants(t)
	completed := map[string]bool{}
	for _, w := range worlds() {
		creds := credentials(w.objects)
		for _, v := range variants {
			text, err := v.run(t.Context(), w, psql)
			completed[v.key] = completed[v.key] || err == nil
			found := leaked(creds, text)
			switch {
			case v.reveals == "" && len(found) > 0:
				t.Errorf("%s: kubectl setpoint %s printed %s", w.name, strings.Join(v.args, " "), strings.Join(found, ", "))
			case v.reveals != "" && err == nil && !onlyRolePasswords(found):
				t.Errorf("%s: kubectl setpoint %s (%s) printed %v, want its role's password and nothing else",
					w.name, strings.Join(v.args, " "), v.reveals, found)
			}
		}
	}
	// Each command line must get through to what it prints on some object
	// of some world, or its scan proved nothing: extend the fixture.
	for _, key := range slices.Sorted(maps.Keys(completed)) {
		if !completed[key] {
			t.Errorf("kubectl setpoint %s fails on every fixture object and world", key)
		}
	}
}

// credential is one Secret value an output must not show.
type credential struct {
	secret, key string
	forms       []string
}

func (c credential) String() string { return "Secret " + c.secret + " key " + c.key }

// publicKeys are the Secret keys that are no secret: a role's name, a
// certificate.
var publicKeys = map[string]bool{"username": true, "ca.crt": true, "tls.crt": true}

// credentials are every other value of every Secret, in each form an
// output could carry it: as is, base64 (a Secret's data in JSON or YAML),
// escaped in a URI, each line of a multi-line value (a private key), and
// each of those escaped in JSON.
func credentials(objs []runtime.Object) []credential {
	var out []credential
	for _, o := range objs {
		s, ok := o.(*corev1.Secret)
		if !ok {
			continue
		}
		for key, value := range s.Data {
			if publicKeys[key] {
				continue
			}
			out = append(out, credential{secret: s.Name, key: key, forms: forms(string(value))})
		}
	}
	return out
}

func forms(v string) []string {
	out := []string{v, base64.StdEncoding.EncodeToString([]byte(v)), url.QueryEscape(v), url.PathEscape(v),
		strings.TrimPrefix(url.UserPassword("", v).String(), ":")}
	for _, line := range strings.Split(v, "\n") {
		if len(line) > 8 && !strings.HasPrefix(line, "-----") {
			out = append(out, line)
		}
	}
	// Each of those inside a JSON string (-o json escapes &, < and >).
	for _, f := range slices.Clone(out) {
		quoted, _ := json.Marshal(f)
		out = append(out, strings.Trim(string(quoted), `"`))
	}
	return out
}

// leaked are the credentials text shows, in any form.
func leaked(creds []credential, text string) []string {
	var out []string
	for _, c := range creds {
		for _, f := range c.forms {
			if strings.Contains(text, f) {
				out = append(out, c.String())
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// onlyRolePasswords: something was revealed, and only passwords of a
// database's roles (never the superuser's or the monitor's, nor a key).
func onlyRolePasswords(found []string) bool {
	if len(found) == 0 {
		return false
	}
	for _, f := range found {
		if !strings.HasPrefix(f, "Secret shop-app-") || !strings.HasSuffix(f, " key password") {
			return false
		}
	}
	return true
}
