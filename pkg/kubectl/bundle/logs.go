package bundle

import (
	"bufio"
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// instanceLogs adds the log of every container of the cluster's Pods.
func (c Collector) instanceLogs(ctx context.Context, b *Bundle, pods []corev1.Pod) {
	for _, p := range pods {
		for _, ct := range p.Spec.Containers {
			name := fmt.Sprintf("logs/pods/%s/%s.log", p.Name, ct.Name)
			log, err := c.log(ctx, c.Namespace, p.Name, ct.Name)
			if err != nil {
				b.note(name, err)
				continue
			}
			b.Add(name, log)
		}
	}
}

// operatorLogs adds the operator Pods' log lines that name the namespace
// (setpoint logs an object as namespace/name): the lines about other
// namespaces are other teams' business.
func (c Collector) operatorLogs(ctx context.Context, b *Bundle) {
	pods, err := c.Kube.CoreV1().Pods(c.OperatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: c.OperatorSelector})
	if err != nil {
		b.note("logs/operator", fmt.Errorf("list the operator's Pods in %s: %w", c.OperatorNamespace, err))
		return
	}
	if len(pods.Items) == 0 {
		b.note("logs/operator", fmt.Errorf("no Pod in namespace %s matches %s (--operator-namespace, --operator-selector)", c.OperatorNamespace, c.OperatorSelector))
	}
	for _, p := range pods.Items {
		name := "logs/operator/" + p.Name + ".log"
		log, err := c.log(ctx, c.OperatorNamespace, p.Name, "")
		if err != nil {
			b.note(name, err)
			continue
		}
		b.Add(name, linesNaming(log, c.Namespace+"/"))
	}
}

func (c Collector) log(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	opts := &corev1.PodLogOptions{Container: container, Timestamps: true}
	if c.TailLines > 0 {
		opts.TailLines = &c.TailLines
	}
	read := c.readLog
	if read == nil {
		read = func(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) ([]byte, error) {
			return c.Kube.CoreV1().Pods(namespace).GetLogs(pod, opts).DoRaw(ctx)
		}
	}
	b, err := read(ctx, namespace, pod, opts)
	if err != nil {
		return nil, fmt.Errorf("logs of %s/%s %s: %w", namespace, pod, container, err)
	}
	return b, nil
}

// linesNaming keeps the lines of log that contain s.
func linesNaming(log []byte, s string) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(s)) {
			out.Write(sc.Bytes())
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}
