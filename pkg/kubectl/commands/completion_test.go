package commands

import (
	"strings"
	"testing"
)

// Each argument completes with the names of what its usage line says it
// is, from the API server, as cobra's __complete (which the shell scripts
// of `completion bash|zsh|fish` call) prints them.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status", ""}, "shop"},
		{[]string{"report", "sh"}, "shop"},
		{[]string{"conn", ""}, "shop-app shop-certs"},
		{[]string{"conn", "shop-c"}, "shop-certs"},
		{[]string{"explain", "--cluster", ""}, "shop"},
		{[]string{"promote", "shop", ""}, "shop-1 shop-2"},
		{[]string{"promote", "shop", "shop-2", ""}, ""},
		{[]string{"conn", "shop-app", "--role", ""}, "admin rw ro"},
	} {
		c := worlds()[0].clients()
		out, err := runIn(t, c, append([]string{"__complete"}, tc.args...)...)
		if err != nil {
			t.Fatalf("__complete %v: %v", tc.args, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		// The last lines are cobra's directive (":4", no file completion)
		// and its note on stderr.
		var got []string
		for _, l := range lines {
			if strings.HasPrefix(l, ":") {
				break
			}
			got = append(got, l)
		}
		if strings.Join(got, " ") != tc.want || !strings.Contains(out, ":4\n") {
			t.Errorf("__complete %v: %q, want %q and directive :4", tc.args, out, tc.want)
		}
	}
}

// cobra's completion command writes the scripts for each shell.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		out, err := runIn(t, worlds()[0].clients(), "completion", shell)
		if err != nil || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: %v\n%.200s", shell, err, out)
		}
	}
}
