# Data sets and R's own Hartigan-Wong results for tests/kmeans_r.sh.
# Usage: Rscript kmeans_r.R OUTDIR. For each case writes case_NN.in
# (m d k iter.max, the m points, the k starting centres; %.17g) and case_NN.out
# (ifault, iter, cluster, centers, withinss) from
# kmeans(x, centers = <matrix>, iter.max, algorithm = "Hartigan-Wong").
args <- commandArgs(trailingOnly = TRUE)
out <- args[1]
set.seed(20261126)
fmt <- function(v) paste(sprintf("%.17g", v), collapse = " ")
ncase <- 0
run <- function(x, centers, iter.max = 10L) {
  ncase <<- ncase + 1
  x <- as.matrix(x); centers <- as.matrix(centers)
  stem <- file.path(out, sprintf("case_%02d", ncase))
  con <- file(paste0(stem, ".in"), "w")
  writeLines(sprintf("%d %d %d %d", nrow(x), ncol(x), nrow(centers), iter.max), con)
  for (i in seq_len(nrow(x))) writeLines(fmt(x[i, ]), con)
  for (l in seq_len(nrow(centers))) writeLines(fmt(centers[l, ]), con)
  close(con)
  z <- tryCatch(suppressWarnings(kmeans(x, centers = centers, iter.max = iter.max,
                                        algorithm = "Hartigan-Wong")),
                error = function(e) conditionMessage(e))
  con <- file(paste0(stem, ".out"), "w")
  if (is.character(z)) {
    # R stops on an empty cluster (AS 136 ifault 1) and on bad k (3).
    writeLines(sprintf("ifault %d", if (grepl("empty cluster", z)) 1L else 3L), con)
  } else {
    writeLines(sprintf("ifault %d", z$ifault), con)
    writeLines(sprintf("iter %d", z$iter), con)
    writeLines(paste("cluster", paste(z$cluster, collapse = " ")), con)
    writeLines(paste("centers", fmt(t(z$centers))), con)
    writeLines(paste("wss", fmt(z$withinss)), con)
  }
  close(con)
}
pick <- function(x, k) { u <- unique(as.matrix(x)); u[sample.int(nrow(u), k), , drop = FALSE] }
blobs <- function(m, d, k, spread) {
  mu <- matrix(rnorm(k * d, sd = 10), k, d)
  g <- sample.int(k, m, replace = TRUE)
  mu[g, , drop = FALSE] + matrix(rnorm(m * d, sd = spread), m, d)
}
# 1 well separated; 2 overlapping; 3 integer data with many ties and duplicates
x <- blobs(60, 2, 3, 0.5); run(x, pick(x, 3))
x <- matrix(rnorm(200 * 5), 200, 5); run(x, pick(x, 8))
x <- matrix(round(rnorm(300 * 3) * 2), 300, 3); run(x, pick(x, 10), 30L)
# 4 larger mixture; 5 one dimension, ten values; 6 two clusters (QTRAN only)
x <- blobs(1000, 10, 25, 3); run(x, pick(x, 25), 50L)
x <- matrix(sample(1:10, 120, replace = TRUE), 120, 1); run(x, pick(x, 4))
x <- blobs(100, 4, 2, 4); run(x, pick(x, 2))
# 7 iteration limit reached (ifault 2)
x <- matrix(rnorm(500 * 2), 500, 2); run(x, pick(x, 20), 1L)
# 8 scenario-like: 1024 correlated lognormal vectors into 116 (Table 3-2, Feb)
L <- matrix(rnorm(16 * 16) * 0.3, 16, 16); diag(L) <- 1
x <- exp(matrix(rnorm(1024 * 16), 1024, 16) %*% L * 0.3); run(x, pick(x, 116), 100L)
# 9 columns on very different scales; 10 centres that are not data points
x <- cbind(rnorm(300) * 1e-3, rnorm(300), rnorm(300) * 1e4); run(x, pick(x, 6))
x <- blobs(150, 2, 5, 2); run(x, pick(x, 5) + runif(10, -0.5, 0.5), 20L)
# 11 a centre no point is nearest to: empty cluster (R stops, AS 136 ifault 1)
x <- matrix(rnorm(50 * 2), 50, 2); run(x, rbind(x[1:2, ], c(100, 100)))
# 12 the study's size: 1024 points, 64 stations, 200 groups; 13 duplicated rows
x <- matrix(rnorm(1024 * 64), 1024, 64) %*% matrix(rnorm(64 * 64) * 0.2, 64, 64)
run(x, pick(x, 200), 100L)
x <- blobs(80, 3, 4, 1); x <- rbind(x, x[1:40, ], x[1:20, ]); run(x, pick(x, 7))
# 14 many groups for few points (K = m / 2), 15 K = m - 1
x <- matrix(rnorm(40 * 2), 40, 2); run(x, pick(x, 20))
x <- matrix(rnorm(12 * 2), 12, 2); run(x, pick(x, 11))
cat(ncase, "cases\n")
