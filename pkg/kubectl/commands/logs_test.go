package commands

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubetesting "k8s.io/client-go/testing"
)

// runIn runs one command line against c; stdout and the error.
func runIn(t *testing.T, c *clients, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	o := &Options{Streams: genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}}
	o.connect = func() (*clients, error) { return c, nil }
	root := NewRoot(o)
	root.SetArgs(args)
	err := root.ExecuteContext(t.Context())
	return out.String(), err
}

// logRequests are the namespaces and options of the log requests made
// (the fake records no Pod name; the output's prefixes name the Pods).
func logRequests(c *clients) []string {
	var out []string
	for _, a := range c.kube.(*kubefake.Clientset).Actions() {
		if a.GetSubresource() != "log" {
			continue
		}
		o := a.(kubetesting.GenericAction).GetValue().(*corev1.PodLogOptions)
		tail := "all"
		if o.TailLines != nil {
			tail = strconv.FormatInt(*o.TailLines, 10)
		}
		out = append(out, fmt.Sprintf("%s container=%q follow=%v tail=%s", a.GetNamespace(), o.Container, o.Follow, tail))
	}
	return out
}

// The instances' logs are their postgres containers', PgBouncer's Pod
// aside, each line after its Pod's name, with the flags' options.
func TestLogsOfTheInstances(t *testing.T) {
	c := worlds()[0].clients()
	out, err := runIn(t, c, "logs", "shop", "--tail=5", "-f")
	if err != nil {
		t.Fatal(err)
	}
	if out != "[shop-1] fake logs\n[shop-2] fake logs\n" && out != "[shop-2] fake logs\n[shop-1] fake logs\n" {
		t.Fatalf("output %q", out)
	}
	want := fixtureNamespace + ` container="postgres" follow=true tail=5`
	if reqs := logRequests(c); len(reqs) != 2 || reqs[0] != want || reqs[1] != want {
		t.Fatalf("log requests %q, want two of %q", reqs, want)
	}
}

func TestLogsOfOneInstanceAndOfTheOperator(t *testing.T) {
	c := worlds()[0].clients()
	if out, err := runIn(t, c, "logs", "shop", "--instance", "shop-2", "-c", "bootstrap-controller"); err != nil || out != "[shop-2] fake logs\n" {
		t.Fatalf("--instance shop-2: %q, %v", out, err)
	}
	if reqs := logRequests(c); len(reqs) != 1 || reqs[0] != fixtureNamespace+` container="bootstrap-controller" follow=false tail=all` {
		t.Fatalf("requests %q: want shop-2's container bootstrap-controller", reqs)
	}
	c = worlds()[0].clients()
	if out, err := runIn(t, c, "logs", "shop", "--operator"); err != nil || out != "[setpoint-6b8] fake logs\n" {
		t.Fatalf("--operator: %q, %v", out, err)
	}
	if reqs := logRequests(c); len(reqs) != 1 || reqs[0] != `setpoint-system container="" follow=false tail=all` {
		t.Fatalf("requests %q: want the operator Pod's only container", reqs)
	}
	if _, err := runIn(t, c, "logs", "shop", "--instance", "shop-9"); err == nil || !strings.Contains(err.Error(), "no instance shop-9") {
		t.Fatalf("an instance that does not exist: %v", err)
	}
}
