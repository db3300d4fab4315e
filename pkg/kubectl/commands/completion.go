package commands

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lister names the objects an argument may name, in the namespace of the
// kubectl flags; args are the arguments before it.
type lister func(ctx context.Context, c *clients, args []string) ([]string, error)

// argListers complete an argument by the word its usage line calls it:
// the usage line is the one place that says what each argument is.
var argListers = map[string]lister{
	"CLUSTER":  listClusters,
	"DATABASE": listDatabases,
	"INSTANCE": listInstances,
}

// addCompletion gives every command below root completion of its
// arguments (cobra's `completion` command writes the shell scripts;
// docs/guides/kubectl-plugin.md says how kubectl finds them).
func (o *Options) addCompletion(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		var words []string
		for _, w := range strings.Fields(cmd.Use)[1:] {
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") {
				break
			}
			words = append(words, w)
		}
		cmd.ValidArgsFunction = o.completeArgs(words)
	}
}

func (o *Options) completeArgs(words []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= len(words) || cmd.Context() == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		word := words[len(args)]
		// explain and rotate name a PostgresCluster with --cluster.
		if f := cmd.Flags().Lookup("cluster"); word == "DATABASE" && f != nil && f.Value.String() == "true" {
			word = "CLUSTER"
		}
		list, ok := argListers[word]
		if !ok {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := o.connectClients()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		names, err := list(cmd.Context(), c, args)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func listClusters(ctx context.Context, c *clients, _ []string) ([]string, error) {
	l, err := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list PostgresClusters: %w", err)
	}
	var out []string
	for _, o := range l.Items {
		out = append(out, o.Name)
	}
	sort.Strings(out)
	return out, nil
}

func listDatabases(ctx context.Context, c *clients, _ []string) ([]string, error) {
	l, err := c.pg.PostgresV1alpha1().PostgresDatabases(c.namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list PostgresDatabases: %w", err)
	}
	var out []string
	for _, o := range l.Items {
		out = append(out, o.Name)
	}
	sort.Strings(out)
	return out, nil
}

// listInstances are the instance Pods of the cluster args[0] names.
func listInstances(ctx context.Context, c *clients, args []string) ([]string, error) {
	l, err := c.kube.CoreV1().Pods(c.namespace).List(ctx, metav1.ListOptions{LabelSelector: instanceSelector(args[0])})
	if err != nil {
		return nil, fmt.Errorf("list the instances of %s: %w", args[0], err)
	}
	names := podNames(l.Items)
	sort.Strings(names)
	return names, nil
}

// instanceSelector selects the Pods CloudNativePG runs a cluster's
// Postgres in: PgBouncer's Pods carry the cluster's label too.
func instanceSelector(cluster string) string {
	return "cnpg.io/cluster=" + cluster + ",!cnpg.io/poolerName"
}
