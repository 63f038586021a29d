// What a command may ask a person. Commands see only this interface: the real one (inquirer.ts)
// loads @inquirer/prompts on the first question, and tests answer through fake.ts.

export interface Choice {
  value: string;
  name: string;
  description?: string;
}

/** true accepts the answer; a string is the reason it is refused, shown inline before asking again. */
export type Validate = (answer: string) => true | string;

export interface Prompter {
  text(question: { message: string; default?: string; validate?: Validate }): Promise<string>;
  /** Text typed unseen (a secret): nothing is echoed, not even a mask of its length. */
  password(question: { message: string; validate?: Validate }): Promise<string>;
  select(question: { message: string; choices: Choice[]; default?: string }): Promise<string>;
  confirm(question: { message: string; default?: boolean }): Promise<boolean>;
  /** Pick one of many, narrowed by what the person types (ids of related resources). */
  search(question: { message: string; source: (term: string) => Promise<Choice[]> }): Promise<string>;
  /** Pick any of a few (which attributes to change). */
  checkbox(question: { message: string; choices: Choice[] }): Promise<string[]>;
}
