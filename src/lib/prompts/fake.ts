// A prompter that answers from a script, for tests: it records every question, runs the real
// validation on each answer (a refused answer is recorded and the next one is tried, as a person
// would retype), and can be told to behave as if Ctrl-C were pressed.
import { InterruptedError } from '../cli/errors.js';
import type { Choice, Prompter } from './prompter.js';

/** An answer, or CTRL_C to interrupt at that question. */
export type Answer = string | boolean | string[] | typeof CTRL_C;
export const CTRL_C = Symbol('ctrl-c');

export interface Asked {
  kind: 'text' | 'password' | 'select' | 'confirm' | 'search' | 'checkbox';
  message: string;
  choices?: Choice[];
  default?: string | boolean;
  /** Reasons given for refused answers, in order. */
  refused: string[];
}

export function fakePrompter(answers: Answer[]): Prompter & { asked: Asked[]; remaining(): number } {
  const queue = [...answers];
  const asked: Asked[] = [];
  const take = (question: Asked): Exclude<Answer, typeof CTRL_C> => {
    if (queue.length === 0) throw new Error(`the fake prompter has no answer for "${question.message}"`);
    const answer = queue.shift()!;
    if (answer === CTRL_C) throw new InterruptedError();
    return answer;
  };
  const next = (question: Asked) => {
    asked.push(question);
    return take(question);
  };
  // As the real prompter: a refused script is a rejected promise, never a throw.
  const settled = <T>(answer: () => T): Promise<T> => new Promise<T>((resolve) => resolve(answer()));
  const pick = (question: Asked, choices: Choice[]): string => {
    const answer = String(next(question));
    if (!choices.some((c) => c.value === answer))
      throw new Error(`"${answer}" is not a choice of "${question.message}"`);
    return answer;
  };
  return {
    asked,
    remaining: () => queue.length,
    text: (q) =>
      settled(() => {
        const question: Asked = { kind: 'text', message: q.message, default: q.default, refused: [] };
        asked.push(question);
        for (;;) {
          const answer = String(take(question));
          const value = answer === '' && q.default !== undefined ? q.default : answer;
          const verdict = q.validate ? q.validate(value) : true;
          if (verdict === true) return value;
          question.refused.push(verdict);
        }
      }),
    password: (q) =>
      settled(() => {
        const question: Asked = { kind: 'password', message: q.message, refused: [] };
        asked.push(question);
        for (;;) {
          const answer = String(take(question));
          const verdict = q.validate ? q.validate(answer) : true;
          if (verdict === true) return answer;
          question.refused.push(verdict);
        }
      }),
    select: (q) =>
      settled(() =>
        pick({ kind: 'select', message: q.message, choices: q.choices, default: q.default, refused: [] }, q.choices),
      ),
    confirm: (q) =>
      settled(() => {
        const answer = next({ kind: 'confirm', message: q.message, default: q.default, refused: [] });
        if (typeof answer !== 'boolean')
          throw new Error(`a confirm needs true or false, not ${JSON.stringify(answer)}`);
        return answer;
      }),
    async search(q) {
      const question: Asked = { kind: 'search', message: q.message, refused: [] };
      const answer = String(next(question));
      // An answer "term=>value" types term first, then picks value from what the search offers.
      const [term, value] = answer.includes('=>') ? answer.split('=>') : ['', answer];
      const choices = await q.source(term);
      question.choices = choices;
      if (!choices.some((c) => c.value === value))
        throw new Error(
          `"${value}" is not offered by the search for "${term}" (offered: ${choices.map((c) => c.value).join(', ')})`,
        );
      return value;
    },
    checkbox: (q) =>
      settled(() => {
        const answer = next({ kind: 'checkbox', message: q.message, choices: q.choices, refused: [] });
        if (!Array.isArray(answer) || answer.some((a) => !q.choices.some((c) => c.value === a)))
          throw new Error(`not choices of "${q.message}": ${JSON.stringify(answer)}`);
        return answer;
      }),
  };
}
