// An inverted-file (IVF) index for approximate nearest-neighbour search: k-means splits the
// points into `n_lists` lists; a query scans the `n_probe` lists whose centroids are
// nearest. More probes: better recall, more points scanned, more list reads.

const dist2 = (a, b) => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2
  return s
}

export function buildIndex(points, {n_lists, kmeans_iters}, random) {
  const k = Math.max(1, Math.min(n_lists, points.length))
  const order = points.map((_, i) => i).sort(() => random() - 0.5)
  let centroids = order.slice(0, k).map(i => [...points[i]])
  let assign = new Array(points.length).fill(0)
  for (let it = 0; it < Math.max(1, kmeans_iters); it++) {
    assign = points.map(p => {
      let best = 0
      let bd = Infinity
      for (let c = 0; c < centroids.length; c++) {
        const d = dist2(p, centroids[c])
        if (d < bd) [bd, best] = [d, c]
      }
      return best
    })
    const sums = centroids.map(c => new Array(c.length).fill(0))
    const counts = new Array(centroids.length).fill(0)
    points.forEach((p, i) => {
      counts[assign[i]]++
      p.forEach((x, d) => (sums[assign[i]][d] += x))
    })
    centroids = centroids.map((c, j) => (counts[j] ? sums[j].map(x => x / counts[j]) : c))
  }
  const lists = centroids.map(() => [])
  assign.forEach((c, i) => lists[c].push(i))
  return {centroids, lists}
}

export function search(index, points, query, {n_probe}, k = 10) {
  const probes = index.centroids.map((c, j) => [dist2(query, c), j]).sort((a, b) => a[0] - b[0]).slice(0, Math.max(1, n_probe))
  const seen = []
  for (const [, j] of probes) for (const i of index.lists[j]) seen.push([dist2(query, points[i]), i])
  seen.sort((a, b) => a[0] - b[0])
  return {ids: seen.slice(0, k).map(x => x[1]), scanned: seen.length, reads: probes.length}
}
