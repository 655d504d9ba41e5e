{{/* The name of every object: the release name, or release-chart when the release name lacks the chart's. */}}
{{- define "dra-webhook.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels on every object. app.kubernetes.io/name is the one the kustomize install uses too. */}}
{{- define "dra-webhook.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "dra-webhook.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The image, refused when the operator did not say which: no registry serves a default. */}}
{{- define "dra-webhook.image" -}}
{{- $repo := required "image.repository is required: the image you built and pushed (docker build -t REGISTRY/dra-webhook:TAG .), e.g. --set image.repository=registry.example.com/dra-webhook" .Values.image.repository -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- $tag := required "image.tag (or image.digest) is required: the tag you pushed, e.g. --set image.tag=0.1.0" .Values.image.tag -}}
{{- printf "%s:%s" $repo (toString $tag) -}}
{{- end -}}
{{- end -}}

{{/* A Service's name is a DNS label: Helm takes release names with dots (a.b) that make one the API server
refuses at install, after the hooks ran; refused here, at render, with the rule named. (A leading digit is
left to the API server: releases with RelaxedServiceNameValidation accept it.) */}}
{{- define "dra-webhook.serviceName" -}}
{{- $name := include "dra-webhook.fullname" . -}}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $name) -}}
{{- fail (printf "the release name %q makes the Service name %q, which is not a DNS label (lower-case letters, digits and '-'): choose a release name without dots" .Release.Name $name) -}}
{{- end -}}
{{- $name -}}
{{- end -}}
{{- define "dra-webhook.tlsSecretName" -}}
{{- if and (eq .Values.certificates.mode "secret") .Values.certificates.secret.name -}}
{{- .Values.certificates.secret.name -}}
{{- else -}}
{{- printf "%s-tls" (include "dra-webhook.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* CA and serving certificate made by Helm (certificates.mode=helm), made once per render (kept in
.Values so the Secret and both caBundles agree) and read back from the Secret of a previous install, so an
upgrade keeps them. A dict with ca, crt, key (base64 PEM). */}}
{{- define "dra-webhook.helmCerts" -}}
{{- if not (hasKey .Values.certificates "_made") -}}
{{- $secretName := include "dra-webhook.tlsSecretName" . -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $secretName -}}
{{- $made := dict -}}
{{- if and $existing $existing.data (hasKey $existing.data "ca.crt") -}}
{{- $made = dict "ca" (index $existing.data "ca.crt") "crt" (index $existing.data "tls.crt") "key" (index $existing.data "tls.key") -}}
{{- else -}}
{{- $svc := include "dra-webhook.serviceName" . -}}
{{- $ns := .Release.Namespace -}}
{{- $days := int .Values.certificates.helmValidityDays -}}
{{- $ca := genCA (printf "%s CA" $svc) $days -}}
{{- $names := list (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns) -}}
{{- $cert := genSignedCert (printf "%s.%s.svc" $svc $ns) nil $names $days $ca -}}
{{- $made = dict "ca" ($ca.Cert | b64enc) "crt" ($cert.Cert | b64enc) "key" ($cert.Key | b64enc) -}}
{{- end -}}
{{- $_ := set .Values.certificates "_made" $made -}}
{{- end -}}
{{- toYaml .Values.certificates._made -}}
{{- end -}}

{{/* The webhook configurations' caBundle where no injector sets it. */}}
{{- define "dra-webhook.caBundle" -}}
{{- if eq .Values.certificates.mode "helm" -}}
{{- (include "dra-webhook.helmCerts" . | fromYaml).ca -}}
{{- else if eq .Values.certificates.mode "secret" -}}
{{- required "certificates.secret.caBundle is required with certificates.mode=secret: base64 of the PEM CA that signed your Secret's certificate" .Values.certificates.secret.caBundle -}}
{{- end -}}
{{- end -}}
