"""The list of lessons and exercises: the one place that says which exercise lives where.

Each exercise is one pytest marker in ``course/tests/<lesson>.py`` and one or more cells of the
lesson notebook ``course/solutions/<lesson>.ipynb`` (the learner's copy is generated into
``course/exercises/``). The hint is printed when a check fails.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    name: str       # the pytest marker and the argument of check()
    lesson: str     # the notebook's file name without .ipynb; its tests are tests/test_<lesson>.py
    title: str
    hint: str


LESSONS = {
    "01_tensors": "Tensors, broadcasting and dtypes (notebook 01)",
    "02_control_flow": "Python control flow on tensor values (notebook 02)",
    "03_gradients": "Gradients: VJPs and a tape of your own (notebook 03)",
    "04_kernels_and_layers": "Kernels and layers (notebook 04)",
    "05_optimizers": "Optimizers written by hand (notebook 05)",
    "06_state": "State that lives in variables (notebook 06)",
    "07_advanced_autodiff": "Advanced autodiff and gradient debugging (notebook 07)",
    "08_gpu_kernels": "A GPU kernel under the CUDA simulator (notebook 08)",
    "09_graph_passes": "A graph pass of your own, AutoGraph and SavedModel (notebook 09)",
}

EXERCISES = [
    Exercise("broadcast_shape", "01_tensors", "Predict a broadcast shape",
             "Line the shapes up from the right; a pair of sizes is fine when they are equal or one is 1."),
    Exercise("dtype_predictions", "01_tensors", "Predict result dtypes",
             "A Python number next to a tensor takes the tensor's dtype; Python ints become int32, floats float32."),
    Exercise("collatz_steps", "02_control_flow", "Collatz with a tensor",
             "Loop with `while not bool(n == 1)`; inside, `n // 2` when `bool(n % 2 == 0)`, else `3 * n + 1`."),
    Exercise("sigmoid_vjp", "03_gradients", "The VJP of sigmoid",
             "sigmoid'(x) = s * (1 - s) where s = sigmoid(x), which the VJP receives as `out`; multiply by dy."),
    Exercise("softmax_xent_vjp", "03_gradients", "The VJP of softmax cross-entropy",
             "d loss_i / d logits_i = softmax(logits_i) - labels_i, times dy_i (one number per row: reshape it to (n, 1))."),
    Exercise("scalar_tape", "03_gradients", "A micrograd-sized scalar tape",
             "Each operation stores a closure that adds out.grad times the local derivative into its parents' .grad; "
             "backward() visits the nodes in reverse topological order."),
    Exercise("numba_kernel", "04_kernels_and_layers", "A numba elementwise kernel",
             "Loop over x.ravel() into a new array of the same dtype, then reshape it to x.shape."),
    Exercise("dense_layer", "04_kernels_and_layers", "A Dense layer by hand",
             "build() creates kernel (in_features, units) and bias (units,) with add_weight; call() is "
             "activation(inputs @ kernel + bias)."),
    Exercise("train_digits", "04_kernels_and_layers", "Train your Dense layers on the digits",
             "Scale the images to [0, 1] and flatten them to 64 features; use the mean sparse softmax cross-entropy."),
    Exercise("momentum", "05_optimizers", "SGD with momentum",
             "velocity = momentum * velocity - learning_rate * grad, then var += velocity (one velocity per variable)."),
    Exercise("adam", "05_optimizers", "Adam",
             "m = b1*m + (1-b1)*g, v = b2*v + (1-b2)*g^2, lr_t = lr*sqrt(1-b2^t)/(1-b1^t), var -= lr_t*m/(sqrt(v)+eps)."),
    Exercise("running_mean", "06_state", "A running mean kept in variables",
             "Create the two Variables once in __init__; update() calls self.total.assign_add(...) and "
             "self.count.assign_add(...); result() divides them."),
    Exercise("higher_order", "07_advanced_autodiff", "Higher-order gradients with nested tapes",
             "Open n tapes, one inside the other; take the gradient from the innermost tape outwards."),
    Exercise("clip_gradient", "07_advanced_autodiff", "A custom gradient that clips",
             "The forward is the identity; grad(dy) returns me.clip_by_norm(dy, max_norm)."),
    Exercise("find_the_bug", "07_advanced_autodiff", "Find the planted gradient bug",
             "Run me.testing.check_gradients on each op alone; the debugger shows each op's rule in words."),
    Exercise("gpu_saxpy", "08_gpu_kernels", "a * x + y as a GPU kernel",
             "In the kernel: for i in range(cuda.grid(1), out.size, cuda.gridsize(1)): out[i] = a * x[i] + y[i]. "
             "launch_size(n): blocks = ceil(n / THREADS), at least 1 and at most MAX_BLOCKS."),
    Exercise("gpu_block_sum", "08_gpu_kernels", "A sum per block: a shared-memory tree",
             "acc over a grid-stride loop; shared[t] = acc; syncthreads; while half > 0: if t < half: "
             "shared[t] += shared[t + half]; syncthreads (outside the if); half //= 2. Thread 0 writes partials[blockIdx.x]."),
    Exercise("cse_pass", "09_graph_passes", "Common-subexpression elimination on the graph IR",
             "Key a pure call by (node.op, node.inputs, node.index, freeze(node.attrs)) and a constant by its dtype, "
             "shape and bytes; rewire each node's inputs through the merged nodes before keying it; skip effects."),
    Exercise("dce_pass", "09_graph_passes", "Dead-code elimination on the graph IR",
             "Walk the nodes backwards from a set holding the outputs: a node in the set, an effect or a placeholder "
             "is live and adds its inputs to the set; keep the live nodes in their order."),
    Exercise("autograph_loop", "09_graph_passes", "A Python while loop that AutoGraph turns into a graph loop",
             "Before the loop: years = 0 and amount = start; `while amount < target:` multiply amount by "
             "(1.0 + rate) and add 1 to years; return years, amount. Decorate the function with @me.function."),
    Exercise("saved_module", "09_graph_passes", "A module me.saved_model can save and load without its class",
             "Keep mean and std in me.Variable(np.asarray(..., np.float32)) attributes; decorate __call__ with "
             "@me.function(input_signature=[me.TensorSpec([3], me.float32)]) and return (x - self.mean) / self.std."),
]

BY_NAME = {e.name: e for e in EXERCISES}


def exercises_of(lesson):
    """The exercises of one lesson, in the order they appear in it."""
    return [e for e in EXERCISES if e.lesson == lesson]
