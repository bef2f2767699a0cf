#!/bin/sh
# Creates the service's namespace and registers the search attributes ops staff filter on in the
# Temporal UI. Safe to run again: what exists is left alone. The names match workflows/messages.ts.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:?}"
RETENTION="${TEMPORAL_RETENTION:-720h}"
SEARCH_ATTRIBUTES="DeliveryStatus=Keyword PaymentStatus=Keyword PartnerId=Keyword DeliveryReference=Keyword NeedsAttention=Bool"

# A fresh namespace takes a few seconds to reach every frontend, so each step is retried.
retry() {
  tries=0
  until "$@"; do
    tries=$((tries + 1))
    if [ "$tries" -ge 30 ]; then echo "gave up: $*" >&2; exit 1; fi
    sleep 2
  done
}

retry sh -c "temporal operator cluster health --address '$TEMPORAL_ADDRESS' | grep -q SERVING"

if ! temporal operator namespace describe --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; then
  retry temporal operator namespace create --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE" --retention "$RETENTION"
  echo "namespace $TEMPORAL_NAMESPACE created (retention $RETENTION)"
fi

for attribute in $SEARCH_ATTRIBUTES; do
  name="${attribute%%=*}"
  type="${attribute#*=}"
  if temporal operator search-attribute list --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE" | grep -qw "$name"; then
    echo "search attribute $name already registered"
  else
    retry temporal operator search-attribute create --address "$TEMPORAL_ADDRESS" --namespace "$TEMPORAL_NAMESPACE" \
      --name "$name" --type "$type"
    echo "search attribute $name registered ($type)"
  fi
done
