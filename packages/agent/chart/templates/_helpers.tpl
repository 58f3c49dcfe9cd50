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
