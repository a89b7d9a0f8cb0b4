# Flow-size CDF: Data Mining (the VL2 data-centre measurement: A. Greenberg et al., "VL2: A Scalable and Flexible
# Data Center Network", SIGCOMM 2009), the Data Mining workload of the Dolce-RC paper (its ref. [27]: "91 % of the
# flow sizes are less than 1 MB and the average flow size is 7.41 MB"), in the byte form ExpressPass published.
# Source: github.com/kaist-ina/ns2-xpass (ExpressPass, SIGCOMM 2017), file workloads/workload_mining.tcl,
# commit f4e38bcba7bd97f5c7dc80f8e2617008717d02c7 (ns-2 EmpiricalRandomVariable lines `size 1 cumulative`; the
# middle column dropped here). Sampled by linear interpolation as ns-2 does: mean 7.49 MB (10^6 B; the paper
# says 7.41 MB, 1.1 % less), 91.2 % of flows < 1 MB; the largest flows are 1 GB (1 % of flows above 100 MB).
# columns: size_bytes cumulative_probability
100 0
10000 0.8
152522 0.8346
390541 0.9
3223542 0.953846
100000000 0.99
1000000000 1
