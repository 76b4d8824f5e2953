#include "tests/graph/tiny_inception.h"

#include "lib/graph/graph_builder.h"

namespace xtrain::testing {

std::shared_ptr<const Graph> tiny_inception(int num_classes) {
  GraphBuilder g(3);
  const Value stem = g.conv2d("stem", g.input(), 8, 3, 1, 1);
  const Value a = g.batchnorm_relu("a.bn", g.conv2d("a.conv", stem, 6, 1));
  const Value b = g.relu(g.conv2d("b.conv", stem, 5, 3, 1, 1, /*bias=*/true));
  const Value pool = g.max_pool2d("pool", stem, 3, 1, 1);
  const Value n1 = g.batchnorm("n1.bn", g.conv2d("n1.conv", stem, 3, 1));
  const Value n2 = g.batchnorm("n2.bn", g.conv2d("n2.conv", stem, 4, 1));
  const Value cat = g.concat("cat", {a, b, pool, g.concat("n.cat", {n1, n2})});
  const Value head = g.batchnorm_relu("head.bn", g.conv2d("head.conv", cat, 7, 3, 1, 1));
  g.linear("fc", g.global_avg_pool_flatten("avgpool", head), num_classes);
  return g.finish();
}

}  // namespace xtrain::testing
