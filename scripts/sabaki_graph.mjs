// Sabaki's win-rate and score graph for kosumi's analysis, computed by
// Sabaki's own code: @sabaki/gtp's Controller and ControllerStateTracker
// sync a 19x19 game move by move, `analyze` (Sabaki's first choice) runs
// about 1.5 s a position, each line is parsed by Sabaki's parseAnalysis
// (src/modules/analysis.js) and the graph's value is taken as Sabaki's
// enginesyncer.js takes it: the maximum win rate and score lead over the
// listed moves. Prints, per update, how far that stands above the best
// (most visited) move's. Get the Sabaki files as scripts/sabaki_drive.mjs
// says, then
//
//   node scripts/sabaki_graph.mjs GTP_CHECKOUT ANALYSIS_MJS target/release/kosumi
import {createRequire} from 'module'
import {resolve} from 'path'
import {pathToFileURL} from 'url'
const [gtpDir, analysisFile, kosumi, ...kosumiArgs] = process.argv.slice(2)
const require = createRequire(import.meta.url)
const {Controller, ControllerStateTracker} = require(resolve(gtpDir, 'src/main.js'))
const {parseAnalysis} = await import(pathToFileURL(resolve(analysisFile)).href)

const letters = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'
const size = 19
const board = {
  parseVertex: (v) => {
    let x = letters.indexOf(v[0].toUpperCase()), y = size - +v.slice(1)
    return x < 0 || y < 0 || y >= size ? [-1, -1] : [x, y]
  },
}
const moves = 'Q16 D4 Q3 D16 R5 C14 O17 F17 C6 E3 K16 Q10 R14 P4 O3 C10 L3 H17 R8 M4 N3 C12 Q13 F3 D8 K4 M16 G4 P14 H3'.split(' ')
const controller = new Controller(kosumi, kosumiArgs)
const tracker = new ControllerStateTracker(controller)
controller.start()
let rate = [], score = []
for (let n = 1; n <= moves.length; n++) {
  const history = moves.slice(0, n).map((v, i) => ({name: 'play', args: [i % 2 ? 'W' : 'B', v]}))
  await tracker.sync({komi: 7.5, boardsize: [size, size], history})
  const color = n % 2 ? 'W' : 'B'
  const response = controller.sendCommand({name: 'analyze', args: [color, 25]}, ({line}) => {
    if (!line.startsWith('info ')) return
    const variations = parseAnalysis(line, board, 'integer')
    if (variations.length === 0) return
    // enginesyncer.js: the graph's values are the maxima over the variations.
    const graphRate = Math.max(...variations.map(({winrate}) => winrate))
    const graphScore = Math.max(...variations.map(({scoreLead}) => (scoreLead == null ? NaN : scoreLead)))
    const best = variations.reduce((a, b) => (b.visits > a.visits ? b : a))
    rate.push(graphRate - best.winrate)
    if (isFinite(graphScore)) score.push(graphScore - best.scoreLead)
  })
  await new Promise((r) => setTimeout(r, 1500))
  await controller.sendCommand({name: 'protocol_version'})
  await response
}
await controller.stop()
const summary = (xs) =>
  `mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)}, max ${Math.max(...xs).toFixed(2)}, above 1: ${xs.filter((x) => x > 1).length}`
console.log(`${rate.length} updates over ${moves.length} positions`)
console.log(`graph win rate above the best move's (points of %): ${summary(rate)}`)
console.log(`graph score lead above the best move's (points): ${summary(score)} (${score.length} updates with a score)`)
