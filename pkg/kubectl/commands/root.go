package commands

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

// Options are what the commands share. Tests set Forwarder and Psql to
// reach Postgres without a kubelet; a user never does.
type Options struct {
	Streams genericiooptions.IOStreams
	// Forwarder opens the local end of a connection to a Service;
	// default: a port-forward through the API server.
	Forwarder Forwarder
	// Psql is the psql binary; default "psql" from PATH.
	Psql string
	// ReadCatalog reads a database's privileges (privileges) in the
	// session cfg opens, through the forward; default: grantplan.Read in
	// a read-only transaction.
	ReadCatalog func(ctx context.Context, cfg *pgx.ConnConfig, managed []string) (grantplan.Catalog, error)

	flags *genericclioptions.ConfigFlags
	// connect makes the clients; nil reads them from the kubectl flags.
	// This package's tests serve fixtures through fake clientsets.
	connect func() (*clients, error)
}

// NewRoot is `kubectl setpoint` with its subcommands.
func NewRoot(o *Options) *cobra.Command {
	o.flags = genericclioptions.NewConfigFlags(true)
	// Impersonation's --as and the kubeconfig's --cluster would take the
	// names `restore --as NAME` and `explain --cluster` use; the plugin
	// does without them (--user and --context choose the credentials).
	o.flags.Impersonate, o.flags.ImpersonateUID, o.flags.ImpersonateGroup, o.flags.ImpersonateUserExtra = nil, nil, nil, nil
	o.flags.ClusterName = nil
	root := &cobra.Command{
		Use:           "kubectl-setpoint",
		Short:         "Inspect and operate setpoint's PostgresClusters and PostgresDatabases",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(o.Streams.In)
	root.SetOut(o.Streams.Out)
	root.SetErr(o.Streams.ErrOut)
	o.flags.AddFlags(root.PersistentFlags())
	root.AddCommand(newStatus(o), newExplain(o), newConn(o), newPsql(o), newPrivileges(o), newRotate(o), newBackup(o), newRestore(o), newReport(o), newLogs(o), newRestart(o), newPromote(o))
	o.addCompletion(root)
	return root
}

// clients are the connection the flags describe.
type clients struct {
	config *rest.Config
	kube   kubernetes.Interface
	// dyn reads custom resources whole (report), not through setpoint's
	// typed subset of CNPG's kinds.
	dyn       dynamic.Interface
	pg        versioned.Interface
	namespace string
}

func (o *Options) clients() (*clients, error) {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	pg, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("setpoint client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	return &clients{config: cfg, kube: kube, pg: pg, dyn: dyn, namespace: ns}, nil
}

func (c *clients) reader() inspect.Reader {
	return inspect.Reader{Kube: c.kube, PG: c.pg, Namespace: c.namespace}
}

// connectClients makes the clients: from the kubectl flags, or the
// tests' fakes.
func (o *Options) connectClients() (*clients, error) {
	if o.connect != nil {
		return o.connect()
	}
	return o.clients()
}

// run wraps a command body that needs clients.
func (o *Options) run(body func(ctx context.Context, c *clients, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c, err := o.connectClients()
		if err != nil {
			return err
		}
		return body(cmd.Context(), c, args)
	}
}
