// Package commands is `kubectl setpoint`: the cobra commands, the kubectl
// connection flags (--kubeconfig, --context, --namespace through
// cli-runtime's genericclioptions), and the few side effects the plugin
// has — printing, a port-forward through the API server, running psql, and
// the annotation or object each write command documents. What is shown is
// worked out in package inspect.
package commands
