{{- define "agent.name" -}}meshplane-agent{{- end -}}
{{- define "agent.labels" -}}
app.kubernetes.io/name: meshplane-agent
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
{{- define "agent.selector" -}}
app.kubernetes.io/name: meshplane-agent
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- define "agent.bootstrapSecret" -}}{{ default (printf "%s-bootstrap" .Release.Name) .Values.bootstrap.existingSecret }}{{- end -}}
{{- /* Metrics run when enabled (true or "true") and a Prometheus URL is set. */ -}}
{{- define "agent.metricsOn" -}}{{ if and (eq (toString .Values.metrics.enabled) "true") (ne (toString .Values.metrics.prometheus.url) "none") (ne (toString .Values.metrics.prometheus.url) "") }}true{{ end }}{{- end -}}
{{- define "agent.prometheusAuth" -}}
{{- if include "agent.metricsOn" . }}
{{- if not (has .Values.metrics.prometheus.auth.type (list "none" "bearer" "basic")) }}{{ fail "metrics.prometheus.auth.type must be none, bearer or basic" }}{{ end }}
{{- .Values.metrics.prometheus.auth.type }}
{{- else }}none{{ end }}
{{- end -}}
{{- define "agent.prometheusSecret" -}}{{ default (printf "%s-prometheus" .Release.Name) .Values.metrics.prometheus.auth.existingSecret }}{{- end -}}
{{- define "agent.prometheusPort" -}}
{{- $u := urlParse .Values.metrics.prometheus.url -}}
{{- $hostport := splitList ":" (get $u "host") -}}
{{- if gt (len $hostport) 1 }}{{ last $hostport }}{{ else if eq (get $u "scheme") "https" }}443{{ else }}80{{ end -}}
{{- end -}}
{{- /* Authoring on (true or "true"; toString: a --set-string "false" must not count as set). */ -}}
{{- define "agent.authoringOn" -}}{{ if eq (toString .Values.authoring.enabled) "true" }}true{{ end }}{{- end -}}
{{- /* The namespaces whose custom resources the agent watches, comma-separated; empty: every namespace. */ -}}
{{- define "agent.authoringNamespaces" -}}
{{- $namespaces := .Values.authoring.namespaces | default list | uniq }}
{{- range $namespaces }}{{ if not . }}{{ fail "authoring.namespaces must not hold an empty name (an empty list means every namespace)" }}{{ end }}{{ end }}
{{- join "," $namespaces }}
{{- end -}}
