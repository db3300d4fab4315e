// Command kubectl-setpoint is the kubectl plugin for setpoint: put it on
// PATH and run `kubectl setpoint status CLUSTER`. The commands are in
// pkg/kubectl/commands.
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/commands"
)

func main() {
	o := &commands.Options{Streams: genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}}
	if err := commands.NewRoot(o).ExecuteContext(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
