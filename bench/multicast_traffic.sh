#!/usr/bin/env bash
# Multicast traffic with Nsight Compute: bytes moved from L2 to the SMs by the
# tma_multicast kernel at cluster sizes 1, 2, 4, with multicast (rank 0 loads
# each box once for its cluster) and without (every CTA loads its own copy).
# The tensor (1024 x 1024 bf16, 256 boxes of 64 x 64) has more boxes than
# clusters, so every cluster loads its own box and only CTAs of one cluster
# share a box.
# Usage: bench/multicast_traffic.sh TILEJIT_BINARY SPEC_DIR OUT_DIR
set -uo pipefail
tj=$1; specs=$2; out=$3
# Candidate L2 -> SM traffic metrics; those this ncu does not know are dropped.
wanted="l1tex__m_l1tex2xbar_read_requests_mem_global_op_tma_ld.sum l1tex__m_l1tex2xbar_read_requests_mem_global_op_tma_ld_dest_multicast.sum lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcnode_gpc_op_read.sum lts__t_requests_srcnode_gpc_op_read.sum lts__t_sectors_op_read.sum l1tex__m_xbar2l1tex_read_bytes.sum"
ncu --query-metrics --chip gh100 > "$out/known_metrics.txt" 2>&1
metrics=""
for m in $wanted; do grep -q "^${m%.sum} " "$out/known_metrics.txt" && metrics="$metrics,$m"; done
metrics=${metrics#,}
[ -n "$metrics" ] || metrics=l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum
echo "metrics: $metrics"
grep -iE "multicast|srcnode|tma" "$out/known_metrics.txt" | head -20
echo "cluster multicast clusters ${metrics//,/ }"
for c in 1 2 4; do
  for m in 1 0; do
    n=$((132 / c))
    spec=$out/mc_${c}_${m}.json
    sed -e "s/\"cluster\": 4/\"cluster\": $c/" -e "s/\"clusters\": 33/\"clusters\": $n/" \
        -e "s/\"multicast\": 0/\"multicast\": $m/" -e "s/\"cols\": 256/\"cols\": 1024/" -e "s/\"rows\": 256/\"rows\": 1024/" \
        "$specs/tma_multicast_unicast.json" > "$spec"
    ncu --clock-control none --target-processes all -k tma_multicast -c 1 --metrics $metrics --csv \
        "$tj" run "$spec" --iters 0 > "$out/ncu_${c}_${m}.csv" 2>"$out/ncu_${c}_${m}.err"
    vals=()
    for metric in ${metrics//,/ }; do
      v=$(grep "\"$metric\"" "$out/ncu_${c}_${m}.csv" | tail -1 | awk -F'","' '{print $NF}' | tr -d '"')
      vals+=("${v:-n/a}")
    done
    echo "$c $m $n ${vals[*]}"
  done
done
