package commands

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

type logsFlags struct {
	operator                            bool
	follow                              bool
	container, instance                 string
	operatorNamespace, operatorSelector string
	tail                                int64
	since                               time.Duration
}

func newLogs(o *Options) *cobra.Command {
	var f logsFlags
	cmd := &cobra.Command{
		Use:   "logs CLUSTER",
		Short: "Print the logs of a PostgresCluster's instances (or, with --operator, of setpoint's Pods), each line after its Pod's name",
		Long: "The instances are the Pods CloudNativePG labels cnpg.io/cluster=CLUSTER, PgBouncer's aside; " +
			"--instance picks one. With --operator the Pods are the operator's, found by --operator-namespace and --operator-selector.",
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().BoolVar(&f.operator, "operator", false, "the operator's logs instead of the instances'")
	cmd.Flags().BoolVarP(&f.follow, "follow", "f", false, "keep printing new lines until Ctrl-C")
	cmd.Flags().StringVarP(&f.container, "container", "c", "", "the container (default: postgres for an instance, the Pod's only one for the operator)")
	cmd.Flags().StringVar(&f.instance, "instance", "", "only this instance's Pod (shop-2)")
	cmd.Flags().StringVar(&f.operatorNamespace, "operator-namespace", defaultOperatorNamespace, "the operator's namespace")
	cmd.Flags().StringVar(&f.operatorSelector, "operator-selector", defaultOperatorSelector, "the label selector of the operator's Pods")
	cmd.Flags().Int64Var(&f.tail, "tail", -1, "lines of each Pod's log to start with (-1: all)")
	cmd.Flags().DurationVar(&f.since, "since", 0, "only lines newer than this (5m); 0: all")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		ns, pods, err := f.pods(ctx, c, args[0])
		if err != nil {
			return err
		}
		return streamLogs(ctx, o.Streams.Out, c.kube, ns, pods, f.logOptions())
	})
	return cmd
}

// instanceContainer is the container of a CNPG instance Pod that runs
// Postgres (and CNPG's instance manager, which logs for it).
const instanceContainer = "postgres"

// pods are the Pods to read, in name order, and their namespace.
func (f logsFlags) pods(ctx context.Context, c *clients, cluster string) (string, []string, error) {
	ns, selector := c.namespace, instanceSelector(cluster)
	if f.operator {
		ns, selector = f.operatorNamespace, f.operatorSelector
	}
	list, err := c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return "", nil, fmt.Errorf("list Pods %s in %s: %w", selector, ns, err)
	}
	var names []string
	for _, p := range list.Items {
		if f.instance == "" || p.Name == f.instance {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	switch {
	case len(names) == 0 && f.instance != "":
		return "", nil, fmt.Errorf("no instance %s of PostgresCluster %s in %s (Pods labelled %s)", f.instance, cluster, ns, selector)
	case len(names) == 0:
		return "", nil, fmt.Errorf("no Pod labelled %s in %s", selector, ns)
	}
	return ns, names, nil
}

func (f logsFlags) logOptions() corev1.PodLogOptions {
	opts := corev1.PodLogOptions{Container: f.container, Follow: f.follow}
	if opts.Container == "" && !f.operator {
		opts.Container = instanceContainer
	}
	if f.tail >= 0 {
		opts.TailLines = &f.tail
	}
	if f.since > 0 {
		s := int64(f.since.Seconds())
		opts.SinceSeconds = &s
	}
	return opts
}

// streamLogs copies each Pod's log to out, line by line, each after
// "[pod] ", the Pods side by side: with --follow they all run until ctx
// ends. An error of one Pod ends the others too.
func streamLogs(ctx context.Context, out io.Writer, kube kubernetes.Interface, ns string, pods []string, opts corev1.PodLogOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(pods))
	for i, pod := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = streamPod(ctx, out, &mu, kube, ns, pod, opts); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// The Pods ended by another's error, or by Ctrl-C, are no error.
	var failed []error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			failed = append(failed, err)
		}
	}
	return errors.Join(failed...)
}

func streamPod(ctx context.Context, out io.Writer, mu *sync.Mutex, kube kubernetes.Interface, ns, pod string, opts corev1.PodLogOptions) error {
	r, err := kube.CoreV1().Pods(ns).GetLogs(pod, &opts).Stream(ctx)
	if err != nil {
		return fmt.Errorf("logs of %s/%s: %w", ns, pod, err)
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		mu.Lock()
		_, err := fmt.Fprintf(out, "[%s] %s\n", pod, sc.Bytes())
		mu.Unlock()
		if err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("logs of %s/%s: %w", ns, pod, err)
	}
	return nil
}
