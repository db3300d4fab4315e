{{/* The name of every object: "setpoint", as install.yaml names them. */}}
{{- define "setpoint.fullname" -}}
{{- default "setpoint" .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The selector: the same label install.yaml selects on, so a Deployment
installed either way can be taken over by the other (selectors are
immutable). */}}
{{- define "setpoint.selectorLabels" -}}
app.kubernetes.io/name: {{ include "setpoint.fullname" . }}
{{- end -}}

{{/* Every object's labels: the selector and Helm's own. */}}
{{- define "setpoint.labels" -}}
{{ include "setpoint.selectorLabels" . }}
{{ include "setpoint.helmLabels" . }}
{{- end -}}

{{/* Helm's own labels: all a CRD carries (install.yaml's have none). */}}
{{- define "setpoint.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/* repository:tag, and @digest when one is set. */}}
{{- define "setpoint.image" -}}
{{- $ref := printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- if .Values.image.digest -}}{{- $ref = printf "%s@%s" $ref .Values.image.digest -}}{{- end -}}
{{- $ref -}}
{{- end -}}

{{/* The metrics port's name: the Deployment's, the Service's and the
ServiceMonitor's. */}}
{{- define "setpoint.metricsPortName" -}}
{{- if .Values.metrics.secure }}https-metrics{{ else }}http-metrics{{ end -}}
{{- end -}}

{{/* The metrics Service's labels, which the ServiceMonitor selects. */}}
{{- define "setpoint.metricsSelectorLabels" -}}
{{ include "setpoint.selectorLabels" . }}
app.kubernetes.io/component: metrics
{{- end -}}

{{- /* "true" for a namespace-scoped install: watchNamespaces set, or
watchNamespaceSelector with namespaced RBAC. */ -}}
{{- define "setpoint.namespaced" -}}
{{- $sel := .Values.watchNamespaceSelector | default dict -}}
{{- if or .Values.watchNamespaces (and $sel.selector (ne ($sel.rbac | default "namespaced") "cluster")) }}true{{ end -}}
{{- end -}}
