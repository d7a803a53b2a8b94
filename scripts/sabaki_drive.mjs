// Drives kosumi with Sabaki's own engine code: @sabaki/gtp's Controller and
// ControllerStateTracker (sync by komi, boardsize, clear_board, play, undo,
// set_free_handicap) and Sabaki's parseAnalysis (src/modules/analysis.js),
// as Sabaki's enginesyncer.js does. Neither is part of kosumi: check out
// github.com/SabakiHQ/gtp and github.com/SabakiHQ/Sabaki, copy Sabaki's
// src/modules/analysis.js to a file ending in .mjs, then
//
//   node scripts/sabaki_drive.mjs GTP_CHECKOUT ANALYSIS_MJS \
//       target/release/kosumi --time 1
import {createRequire} from 'module'
import {resolve} from 'path'
import {pathToFileURL} from 'url'
const [gtpDir, analysisFile, kosumi, ...kosumiArgs] = process.argv.slice(2)
const require = createRequire(import.meta.url)
const {Controller, ControllerStateTracker, Command} = require(resolve(gtpDir, 'src/main.js'))
const {parseAnalysis} = await import(pathToFileURL(resolve(analysisFile)).href)

const letters = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'
// A board of side `size`, or of [columns, rows].
const board = (size) => {
  let [width, height] = Array.isArray(size) ? size : [size, size]
  return {
    height,
    parseVertex: (v) => {
      let x = letters.indexOf(v[0].toUpperCase()), y = height - +v.slice(1)
      return x < 0 || x >= width || y < 0 || y >= height ? [-1, -1] : [x, y]
    },
  }
}
const controller = new Controller(kosumi, kosumiArgs)
const tracker = new ControllerStateTracker(controller)
controller.on('command-sent', ({command}) => console.log('>', Command.toString(command)))
controller.start()

async function analyse(name, color, size, ms, extra = []) {
  let updates = 0, last = null
  let response = controller.sendCommand({name, args: [color, 50, ...extra]}, ({line}) => {
    if (line.startsWith('info ')) {
      let v = parseAnalysis(line, board(size), name.startsWith('kata') ? 'float' : 'integer')
      if (v.length > 0) { updates++; last = v }
    } else if (line.startsWith('play ')) console.log('<', line)
  })
  if (!name.includes('genmove')) {
    await new Promise((r) => setTimeout(r, ms))
    let t = Date.now()
    let pv = await controller.sendCommand({name: 'protocol_version'})
    console.log(`  stopped by protocol_version in ${Date.now() - t} ms (answer ${pv.content})`)
  }
  let r = await response
  console.log(`  ${updates} updates parsed, error=${r.error}; best:`,
    last.slice(0, 3).map((v) => `${letters[v.vertex[0]]}${board(size).height - v.vertex[1]} visits ${v.visits} winrate ${v.winrate.toFixed(1)}%` +
      (v.scoreLead != null ? ` scoreLead ${v.scoreLead.toFixed(1)}` : '') + ` pv ${v.moves.length} moves`).join('; '))
}

const list = (await controller.sendCommand({name: 'list_commands'})).content.split('\n')
console.log('  Sabaki would use:', ['analyze', 'kata-analyze', 'lz-analyze'].find((c) => list.includes(c)),
  'and', ['genmove_analyze', 'kata-genmove_analyze', 'lz-genmove_analyze'].find((c) => list.includes(c)))
const play = (c, v) => ({name: 'play', args: [c, v]})
await tracker.sync({komi: 6.5, boardsize: [9, 9], history: [play('B', 'E5'), play('W', 'C3'), play('B', 'G7')]})
await analyse('kata-analyze', 'W', 9, 1200)
// Navigating back one move: the tracker sends undo.
await tracker.sync({komi: 6.5, boardsize: [9, 9], history: [play('B', 'E5'), play('W', 'C3')]})
await analyse('analyze', 'B', 9, 800)
// A handicap game (setup stones as set_free_handicap).
await tracker.sync({komi: 0.5, boardsize: [13, 13], history: [{name: 'set_free_handicap', args: ['D4', 'K10', 'D10']}]})
await analyse('lz-analyze', 'W', 13, 800)
// Dice (kosumi's Aléago): the analysis keeps to the rolled line.
await controller.sendCommand({name: 'aleago-dice', args: ['1d4']})
await analyse('kata-analyze', 'W', 13, 600)
console.log('  allowed:', (await controller.sendCommand({name: 'aleago-allowed', args: ['W']})).content)
await controller.sendCommand({name: 'aleago-dice', args: ['off']})
await tracker.sync({komi: 6.5, boardsize: [9, 9], history: [play('B', 'E5')]})
await analyse('kata-genmove_analyze', 'W', 9, 0)
// A rectangular board: the tracker sends rectangular_boardsize.
await tracker.sync({komi: 7.5, boardsize: [13, 9], history: [play('B', 'D4'), play('W', 'K6'), play('B', 'N9')]})
await analyse('kata-analyze', 'W', [13, 9], 1000)
console.log((await controller.sendCommand({name: 'showboard'})).content)
await controller.stop()
