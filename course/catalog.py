"""The list of lessons and exercises: the one place that says which exercise lives where.

Each exercise is one pytest marker in ``course/tests/<lesson>.py`` and one or more cells of the
lesson notebook ``course/solutions/<lesson>.ipynb`` (the learner's copy is generated into
``course/exercises/``). When a check fails, one hint is printed: a nudge first, a more specific
one after repeated failed tries (``Exercise.hint_for``).
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    name: str       # the pytest marker and the argument of check()
    lesson: str     # the notebook's file name without .ipynb; its tests are tests/test_<lesson>.py
    title: str
    hints: tuple    # from a nudge to the most specific; see hint_for

    @property
    def hint(self):
        """The first hint: a nudge towards the idea, never the answer."""
        return self.hints[0]

    def hint_for(self, failures):
        """The hint after ``failures`` failed checks of this exercise (1 for the first).

        Each hint is shown for ``TRIES_PER_HINT`` failed tries before the next, more specific one:
        a learner first gets a nudge and time to think; the last hint of an exercise whose answer
        is a formula comes only after several tries, and some exercises never give it.
        """
        return self.hints[min(max(failures - 1, 0) // TRIES_PER_HINT, len(self.hints) - 1)]

    def has_more_hints(self, failures):
        return (max(failures - 1, 0) // TRIES_PER_HINT) < len(self.hints) - 1


TRIES_PER_HINT = 2


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
    "10_gradients_by_hand": "Gradients by hand: the broadcast sum-back, matmul, the tape's API, your op in the debugger",
    "11_tracing": "Tracing and retracing with me.function (notebook 09)",
}

EXERCISES = [
    Exercise("broadcast_shape", "01_tensors", "Predict a broadcast shape", (
        "Line the shapes up from the right; a pair of sizes is fine when they are equal or one is 1.",
        "The shorter shape behaves as if it had 1s in front. Walk both shapes from their last size to their "
        "first, and build the result back to front.")),
    Exercise("dtype_predictions", "01_tensors", "Predict result dtypes", (
        "Predict first, then run each expression in a cell of your own and read .shape and .dtype.",
        "A Python number next to a tensor takes the tensor's dtype; Python ints become int32, floats float32. "
        "True division `/` of integers gives a float.")),
    Exercise("collatz_steps", "02_control_flow", "Collatz with a tensor", (
        "A Python `while` loop works on a tensor once you turn the condition into a Python bool.",
        "Loop with `while not bool(n == 1)`; inside, `n // 2` when `bool(n % 2 == 0)`, else `3 * n + 1`.")),
    Exercise("sigmoid_vjp", "03_gradients", "The VJP of sigmoid", (
        "A VJP multiplies the upstream gradient dy by the derivative of the op at x. What is sigmoid's "
        "derivative, written with sigmoid itself? The VJP receives sigmoid(x) as `out`.",
        "Differentiate 1 / (1 + exp(-x)) and write the result in terms of s = 1 / (1 + exp(-x)).",
        "sigmoid'(x) = s * (1 - s) where s = sigmoid(x), which the VJP receives as `out`; multiply by dy.")),
    Exercise("softmax_xent_vjp", "03_gradients", "The VJP of softmax cross-entropy", (
        "Work out d loss / d logits for one row on paper, with 2 classes first; dy holds one number per row.",
        "The loss of a row is -sum(labels * log softmax(logits)); its derivative for each logit is a "
        "difference of two probabilities. dy has shape (n,): it must multiply each row.",
        "d loss_i / d logits_i = softmax(logits_i) - labels_i, times dy_i (one number per row: reshape it to (n, 1)).")),
    Exercise("scalar_tape", "03_gradients", "A micrograd-sized scalar tape", (
        "Each operation knows its local derivatives; backward() must apply the chain rule from the output "
        "back to the leaves, each node after every node that uses it.",
        "Each operation stores a closure that adds out.grad times the local derivative into its parents' .grad; "
        "backward() visits the nodes in reverse topological order.")),
    Exercise("numba_kernel", "04_kernels_and_layers", "A numba elementwise kernel", (
        "The loop works on 1-D arrays; the wrapper must hand it 1-D views of any input and give back the input's shape.",
        "Loop over x.ravel() into a new array of the same dtype, then reshape it to x.shape.")),
    Exercise("dense_layer", "04_kernels_and_layers", "A Dense layer by hand", (
        "build() runs once, when the input's last size is known: that is where the variables are made.",
        "build() creates kernel (in_features, units) and bias (units,) with add_weight; call() is "
        "activation(inputs @ kernel + bias).")),
    Exercise("train_digits", "04_kernels_and_layers", "Train your Dense layers on the digits", (
        "Look at the range and the shape of the images before the first layer sees them.",
        "Scale the images to [0, 1] and flatten them to 64 features; use the mean sparse softmax cross-entropy.")),
    Exercise("momentum", "05_optimizers", "SGD with momentum", (
        "Momentum keeps a velocity per variable that remembers past steps; the variable moves by the velocity.",
        "The velocity decays by `momentum` each step and takes in the new gradient scaled by the learning rate; "
        "compare your first two steps with the built-in by hand.",
        "velocity = momentum * velocity - learning_rate * grad, then var += velocity (one velocity per variable).")),
    Exercise("adam", "05_optimizers", "Adam", (
        "Adam keeps two running averages per variable (of the gradient and of its square) and a step count.",
        "Both averages start at zero, so early steps correct for that bias with the step count t (from 1). "
        "Check your first step: with bias correction it moves each variable by about the learning rate.",
        "m = b1*m + (1-b1)*g, v = b2*v + (1-b2)*g^2, lr_t = lr*sqrt(1-b2^t)/(1-b1^t), var -= lr_t*m/(sqrt(v)+eps).")),
    Exercise("running_mean", "06_state", "A running mean kept in variables", (
        "The state must live in variables made once, and change in place.",
        "Create the two Variables once in __init__; update() calls self.total.assign_add(...) and "
        "self.count.assign_add(...); result() divides them.")),
    Exercise("higher_order", "07_advanced_autodiff", "Higher-order gradients with nested tapes", (
        "A tape records the gradient computation of an inner tape only while it is open around it.",
        "Open n tapes, one inside the other; take the gradient from the innermost tape outwards.")),
    Exercise("clip_gradient", "07_advanced_autodiff", "A custom gradient that clips", (
        "The forward pass changes nothing; only what grad(dy) returns matters.",
        "The forward is the identity; grad(dy) returns me.clip_by_norm(dy, max_norm).")),
    Exercise("find_the_bug", "07_advanced_autodiff", "Find the planted gradient bug", (
        "Run me.testing.check_gradients on each op alone; the debugger shows each op's rule in words.",
        "Step the debugger to the op whose check fails and compute its rule by hand for one element.")),
    Exercise("gpu_saxpy", "08_gpu_kernels", "a * x + y as a GPU kernel", (
        "Each thread must handle every element whose index it reaches by striding over the whole grid, "
        "and never touch an index past the end.",
        "cuda.grid(1) is a thread's first index and cuda.gridsize(1) the stride; the launch needs enough "
        "blocks for the array, and never more than MAX_BLOCKS.",
        "In the kernel: for i in range(cuda.grid(1), out.size, cuda.gridsize(1)): out[i] = a * x[i] + y[i]. "
        "launch_size(n): blocks = ceil(n / THREADS), at least 1 and at most MAX_BLOCKS.")),
    Exercise("gpu_block_sum", "08_gpu_kernels", "A sum per block: a shared-memory tree", (
        "Every thread of a block must reach every cuda.syncthreads(); a thread reads a neighbour's value only "
        "after a barrier.",
        "acc over a grid-stride loop; shared[t] = acc; syncthreads; while half > 0: if t < half: "
        "shared[t] += shared[t + half]; syncthreads (outside the if); half //= 2. Thread 0 writes partials[blockIdx.x].")),
    Exercise("cse_pass", "09_graph_passes", "Common-subexpression elimination on the graph IR", (
        "Two nodes compute the same value when they run the same op with the same attrs on the same inputs, "
        "after the inputs themselves were merged; effects never merge.",
        "Key a pure call by (node.op, node.inputs, node.index, freeze(node.attrs)) and a constant by its dtype, "
        "shape and bytes; rewire each node's inputs through the merged nodes before keying it; skip effects.")),
    Exercise("dce_pass", "09_graph_passes", "Dead-code elimination on the graph IR", (
        "Work backwards from what must stay: the outputs and the effects.",
        "Walk the nodes backwards from a set holding the outputs: a node in the set, an effect or a placeholder "
        "is live and adds its inputs to the set; keep the live nodes in their order.")),
    Exercise("autograph_loop", "09_graph_passes", "A Python while loop that AutoGraph turns into a graph loop", (
        "Write the loop as plain Python on tensors; inside me.function, AutoGraph turns a `while` on a tensor "
        "condition into me.while_loop. Every variable the loop changes needs a value before it.",
        "Before the loop: years = 0 and amount = start; `while amount < target:` multiply amount by "
        "(1.0 + rate) and add 1 to years; return years, amount. Decorate the function with @me.function.")),
    Exercise("saved_module", "09_graph_passes", "A module me.saved_model can save and load without its class", (
        "me.saved_model saves Variables and traced functions with an input_signature: the state must be "
        "Variables, and the method a me.function with a signature.",
        "Keep mean and std in me.Variable(np.asarray(..., np.float32)) attributes; decorate __call__ with "
        "@me.function(input_signature=[me.TensorSpec([3], me.float32)]) and return (x - self.mean) / self.std.")),
    Exercise("sum_to_shape", "10_gradients_by_hand", "The broadcast sum-back in a gradient", (
        "Each element of a broadcast input was used several times in the output: its gradient adds up the "
        "upstream gradient over every place it was used.",
        "Two kinds of axis are summed: the leading axes dy has and the shape lacks, and the axes where the "
        "shape has 1 and dy does not (keepdims=True keeps those); reshape to the shape at the end.")),
    Exercise("matmul_vjp", "10_gradients_by_hand", "The matmul gradient", (
        "Each gradient has its input's shape: for a of shape (m, k), which product of dy (m, n) with a, b or "
        "their transposes has shape (m, k)?",
        "Work a (1, 2) @ (2, 1) product out by hand: d out / d a[0, p] is b[p, 0]. Then the gradient for a is dy "
        "times b transposed, and for b it is a transposed times dy (in the order the shapes allow).")),
    Exercise("tape_api", "10_gradients_by_hand", "The GradientTape API: watch, persistent, stop_recording", (
        "A tape follows Variables on its own and constants only when watched; it gives one gradient() unless "
        "persistent; what runs under tape.stop_recording() is not recorded.",
        "gradient_of_a_constant: tape.watch(x) first. two_gradients: me.GradientTape(persistent=True), then "
        "two tape.gradient calls. loss_and_gradient: compute the penalty inside `with tape.stop_recording():` "
        "and add it to the loss after that block.")),
    Exercise("own_op_debugger", "10_gradients_by_hand", "Your op's gradient, stepped in the debugger", (
        "A VJP returns a tuple, one gradient per input: dy times the derivative of the op at x.",
        "Differentiate x / (1 + |x|) separately for x > 0 and x < 0; both give the same expression in |x|. In the "
        "debugger, step until your op is highlighted and click its input and output edges.")),
    Exercise("tracing_counts", "11_tracing", "Predict how often me.function traces", (
        "A call traces when its signature is new: the shapes and dtypes of its tensors, the values of its "
        "Python arguments.",
        "A NumPy array becomes a tensor of its own dtype (float64 for np.ones); a Python float is part of the "
        "signature by its value.")),
    Exercise("one_trace", "11_tracing", "One trace for a sweep over Python numbers", (
        "A tensor contributes its shape and dtype to the signature, not its value.",
        "Pass each scale as me.constant(s, dtype=x.dtype).")),
    Exercise("trace_and_run", "11_tracing", "What runs when a function traces, and what on every call", (
        "Python statements run while tracing only; minieager ops (an assign included) become graph nodes that "
        "run on every call.",
        "Inside the decorated function: trace_log.append(tuple(x.shape)) (Python, at trace time) and "
        "runs.assign_add(1) (an op, every call); make the list and the Variable inside the factory.")),
]

BY_NAME = {e.name: e for e in EXERCISES}


def exercises_of(lesson):
    """The exercises of one lesson, in the order they appear in it."""
    return [e for e in EXERCISES if e.lesson == lesson]
