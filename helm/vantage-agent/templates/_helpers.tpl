{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "vantage-agent.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name of the release's objects. */}}
{{- define "vantage-agent.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "vantage-agent.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "vantage-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "vantage-agent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "vantage-agent.labels" -}}
helm.sh/chart: {{ include "vantage-agent.chart" . }}
{{ include "vantage-agent.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: agent
app.kubernetes.io/part-of: vantage
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "vantage-agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "vantage-agent.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "vantage-agent.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The Secret that holds API_KEY, and its key. */}}
{{- define "vantage-agent.secretName" -}}
{{- default (include "vantage-agent.fullname" .) .Values.apiKey.existingSecret }}
{{- end }}
{{- define "vantage-agent.secretKey" -}}
{{- if .Values.apiKey.existingSecret }}{{ .Values.apiKey.existingSecretKey }}{{ else }}API_KEY{{ end }}
{{- end }}

{{/* Seconds the kubelet waits after SIGTERM: the agent's grace period, then time to flush results and exit. */}}
{{- define "vantage-agent.terminationGracePeriodSeconds" -}}
{{- $grace := int .Values.agent.shutdownGraceSeconds }}
{{- if eq (toString .Values.terminationGracePeriodSeconds) "" }}
{{- add $grace 30 }}
{{- else }}
{{- $set := int .Values.terminationGracePeriodSeconds }}
{{- if le $set $grace }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be above agent.shutdownGraceSeconds (%d): the kubelet would kill running checks before the agent's grace period ends" $set $grace) }}
{{- end }}
{{- $set }}
{{- end }}
{{- end }}

{{/* Container resources: from the sizing formula (docs/agent.md, "Sizing"), or resources as given. */}}
{{- define "vantage-agent.resources" -}}
{{- if .Values.sizing.enabled }}
{{- $s := .Values.sizing }}
{{- $memory := add (int $s.baseMemoryMiB) (mul (int .Values.agent.jobConcurrency) (int $s.memoryPerRunMiB)) (mul (int .Values.agent.browserConcurrency) (int $s.memoryPerBrowserRunMiB)) }}
{{- $cpu := add (int $s.baseCpuMillis) (mul (int .Values.agent.browserConcurrency) (int $s.cpuPerBrowserRunMillis)) }}
requests:
  cpu: {{ printf "%dm" $cpu }}
  memory: {{ printf "%dMi" $memory }}
limits:
  memory: {{ printf "%dMi" $memory }}
{{- else }}
{{- toYaml .Values.resources }}
{{- end }}
{{- end }}

{{/* The light slots an autoscaler aims at keeping busy per agent. */}}
{{- define "vantage-agent.targetBusySlots" -}}
{{- $target := mulf (float64 .Values.agent.jobConcurrency) (float64 .Values.autoscaling.targetSlotUtilization) }}
{{- if lt $target 1.0 }}1{{ else }}{{ floor $target | int }}{{ end }}
{{- end }}

{{/* Scale up at once; scale down one agent a minute after the load has stayed lower for the window. */}}
{{- define "vantage-agent.scalingBehavior" -}}
scaleUp:
  stabilizationWindowSeconds: 0
  policies:
    - type: Percent
      value: 100
      periodSeconds: 60
scaleDown:
  stabilizationWindowSeconds: {{ .Values.autoscaling.scaleDownStabilizationSeconds }}
  policies:
    - type: Pods
      value: 1
      periodSeconds: 60
{{- end }}
