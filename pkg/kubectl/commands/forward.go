package commands

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

// Forwarder opens a local port that reaches port of Service service in
// namespace; stop closes it.
type Forwarder interface {
	Forward(ctx context.Context, namespace, service string, port int) (local int, stop func(), err error)
}

// forward opens a local port to the connection's Service (its host and
// port), through o.Forwarder or the API server.
func (o *Options) forward(ctx context.Context, c *clients, conn *inspect.Connection) (local int, stop func(), err error) {
	service, namespace, err := serviceOf(conn.Host)
	if err != nil {
		return 0, nil, err
	}
	port, err := strconv.Atoi(conn.Port)
	if err != nil {
		return 0, nil, fmt.Errorf("port %q: %w", conn.Port, err)
	}
	fw := o.Forwarder
	if fw == nil {
		fw = apiForwarder{config: c.config, kube: c.kube, log: o.Streams.ErrOut}
	}
	return fw.Forward(ctx, namespace, service, port)
}

// apiForwarder port-forwards through the API server (pods/portforward,
// SPDY), as `kubectl port-forward service/...` does: the Service is
// resolved to one of its running Pods and its target port.
type apiForwarder struct {
	config *rest.Config
	kube   kubernetes.Interface
	log    io.Writer
}

func (f apiForwarder) Forward(ctx context.Context, namespace, service string, port int) (int, func(), error) {
	pod, podPort, err := servicePod(ctx, f.kube, namespace, service, port)
	if err != nil {
		return 0, nil, err
	}
	dialer, err := f.dialer(namespace, pod.Name)
	if err != nil {
		return 0, nil, err
	}
	fwCtx, cancel := context.WithCancel(ctx)
	ready := make(chan struct{})
	pf, err := portforward.NewOnAddressesWithContext(fwCtx, dialer, []string{"127.0.0.1"},
		[]string{"0:" + strconv.Itoa(podPort)}, ready, io.Discard, f.log)
	if err != nil {
		cancel()
		return 0, nil, fmt.Errorf("port-forward to pod %s/%s: %w", namespace, pod.Name, err)
	}
	failed := make(chan error, 1)
	go func() { failed <- pf.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-failed:
		cancel()
		return 0, nil, fmt.Errorf("port-forward to pod %s/%s port %d: %w", namespace, pod.Name, podPort, err)
	}
	ports, err := pf.GetPorts()
	if err != nil || len(ports) == 0 {
		cancel()
		return 0, nil, fmt.Errorf("port-forward to pod %s/%s: no local port: %w", namespace, pod.Name, err)
	}
	return int(ports[0].Local), cancel, nil
}

// dialer is the SPDY upgrade to the Pod's portforward subresource.
func (f apiForwarder) dialer(namespace, pod string) (httpstream.Dialer, error) {
	transport, upgrader, err := spdy.RoundTripperFor(f.config)
	if err != nil {
		return nil, fmt.Errorf("SPDY transport: %w", err)
	}
	u := f.kube.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("portforward").URL()
	return spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u), nil
}

// servicePod picks a running, ready Pod behind the Service and the Pod
// port its Service port targets.
func servicePod(ctx context.Context, kube kubernetes.Interface, namespace, service string, port int) (*corev1.Pod, int, error) {
	svc, err := kube.CoreV1().Services(namespace).Get(ctx, service, metav1.GetOptions{})
	if err != nil {
		return nil, 0, fmt.Errorf("get Service %s/%s: %w", namespace, service, err)
	}
	if len(svc.Spec.Selector) == 0 {
		return nil, 0, fmt.Errorf("service %s/%s has no selector: nothing to port-forward to", namespace, service)
	}
	pods, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String()})
	if err != nil {
		return nil, 0, fmt.Errorf("list Pods of Service %s/%s: %w", namespace, service, err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			target, err := targetPort(svc, p, port)
			return p, target, err
		}
	}
	return nil, 0, fmt.Errorf("service %s/%s has no running Pod", namespace, service)
}

// targetPort maps a Service port onto the Pod's port, by number or by the
// container port's name.
func targetPort(svc *corev1.Service, pod *corev1.Pod, port int) (int, error) {
	for _, sp := range svc.Spec.Ports {
		if int(sp.Port) != port {
			continue
		}
		switch {
		case sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal != 0:
			return int(sp.TargetPort.IntVal), nil
		case sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "":
			return namedPort(pod, sp.TargetPort.StrVal)
		}
		return port, nil
	}
	return 0, fmt.Errorf("service %s/%s has no port %d", svc.Namespace, svc.Name, port)
}

func namedPort(pod *corev1.Pod, name string) (int, error) {
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == name {
				return int(cp.ContainerPort), nil
			}
		}
	}
	return 0, fmt.Errorf("pod %s has no container port named %q", pod.Name, name)
}

// serviceOf splits "<service>.<namespace>.svc" (the ConfigMap's host).
func serviceOf(host string) (service, namespace string, err error) {
	parts := strings.Split(host, ".")
	if len(parts) < 2 {
		return "", "", fmt.Errorf("host %q is not <service>.<namespace>.svc", host)
	}
	return parts[0], parts[1], nil
}
